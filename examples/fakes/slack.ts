/**
 * A local fake of the Slack Web API's chat.postMessage on 127.0.0.1, as
 * Slack answers: HTTP 200 with `{"ok":true,...}` or `{"ok":false,"error":...}`,
 * HTTP 429 with Retry-After when rate limited. A token it does not know is
 * `invalid_auth`; a revoked one `token_revoked`; a channel id it was not
 * told of `channel_not_found` (without a list of channels, every channel
 * exists). A user id it was told of is posted to that user's DM with the
 * bot, as Slack does. It keeps every message it took, per channel.
 */
import { listenFake, oneLine, sendJson, type FakeOptions } from './listen.js';

export interface FakeSlack {
  /** The API's base URL (what `apiUrl` takes). */
  apiUrl: string;
  /** Messages taken, by channel id, in order. */
  posted: Map<string, string[]>;
  /** Requests seen, with their Authorization header (to check the token is sent, and only to Slack). */
  requests: { authorization: string | undefined; body: unknown }[];
  /** The next answer of chat.postMessage is this instead (once). */
  answerNext(answer: { status?: number; body: unknown; headers?: Record<string, string> }): void;
  revoke(): void;
  close(): Promise<void>;
}

/** What `npm run fakes -- slack` serves, for its banner. */
export const SLACK_ROUTES = ['POST /api/chat.postMessage'];

/**
 * `channels`: the channel ids that exist (all, when left out); `users`:
 * user id → the id of their DM with the bot, for posts addressed to a user.
 */
export async function startFakeSlack(options: { token: string; channels?: string[]; users?: Record<string, string> } & FakeOptions): Promise<FakeSlack> {
  const posted = new Map<string, string[]>();
  const requests: FakeSlack['requests'] = [];
  const queued: { status?: number; body: unknown; headers?: Record<string, string> }[] = [];
  let revoked = false;
  const server = await listenFake(options, ({ method, path, headers, raw }, res, note) => {
    const answer = (status: number, body: unknown, extra: Record<string, string> = {}): void => {
      if (typeof body === 'object' && body !== null && 'error' in body) note(String(body.error));
      sendJson(res, status, body, extra);
    };
    let body: { channel?: unknown; text?: unknown } = {};
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return answer(200, { ok: false, error: 'invalid_json' });
    }
    requests.push({ authorization: headers.authorization, body });
    if (path !== '/api/chat.postMessage' || method !== 'POST') return answer(404, { ok: false, error: 'unknown_method' });
    const next = queued.shift();
    if (next !== undefined) return answer(next.status ?? 200, next.body, next.headers);
    if (headers.authorization !== `Bearer ${options.token}`) return answer(200, { ok: false, error: 'invalid_auth' });
    if (revoked) return answer(200, { ok: false, error: 'token_revoked' });
    const dm = typeof body.channel === 'string' && options.users !== undefined && Object.hasOwn(options.users, body.channel) ? options.users[body.channel] : undefined;
    const channel = dm ?? body.channel;
    if (typeof channel !== 'string' || channel === '' || (options.channels !== undefined && !options.channels.includes(channel))) return answer(200, { ok: false, error: 'channel_not_found' });
    if (typeof body.text !== 'string' || body.text === '') return answer(200, { ok: false, error: 'no_text' });
    posted.set(channel, [...(posted.get(channel) ?? []), body.text]);
    note(`posted to ${channel}: ${oneLine(body.text)}`);
    answer(200, { ok: true, channel, ts: `${Date.now() / 1000}` });
  });
  return {
    apiUrl: `${server.url}/api`,
    posted,
    requests,
    answerNext: (answer) => void queued.push(answer),
    revoke: () => {
      revoked = true;
    },
    close: server.close,
  };
}
