/**
 * The Slack channel, in one of two modes.
 *
 * - Bot (`botToken`): each inbox's messages go to its person's own Slack
 *   conversation, `contacts.<channel name>` (a user id for a DM, or a
 *   channel id), else to `to` when it is set (an operator's channel names
 *   its conversation there), through the Web API's chat.postMessage.
 *   Slack answers HTTP 200 with
 *   `{"ok":false,"error":…}` when it refuses: that body decides, not the
 *   status. A token that no longer works, or a conversation the bot cannot
 *   reach, is rejected for good; rate limits and Slack's own failures are
 *   retried (after Retry-After).
 * - Incoming webhook (`url`): one fixed destination for every inbox
 *   (https://api.slack.com/messaging/webhooks), for a single-user setup.
 *
 * A plain POST (http-post.ts) rather than @slack/web-api: one endpoint, and the SDK's own
 * retry queue would sit under the dispatcher's backoff and the store's
 * reservation, retrying a send the dispatcher already gave up on.
 * Slack has no idempotency key for either: a retried batch may show twice.
 */
import { CHANNEL_DEFAULTS, delivered, rejected, retryLater, type Channel, type DeliveryResult, type OutgoingMessage } from './channel.js';
import { deliverPost, deliveryOf } from './http-post.js';

export interface SlackChannelOptions {
  /** Default `slack`. */
  name?: string;
  /** An incoming webhook URL; it is the credential, so it never appears in errors or logs. */
  url?: string;
  /** A bot token (xoxb-…): messages go to each inbox's `contacts.<name>`. Never in errors or logs. */
  botToken?: string;
  /** With botToken: the conversation for an inbox with no contact on this channel (and for the operator's messages); without it, such a message is undeliverable here. */
  to?: string | undefined;
  /** The Web API's base URL (default Slack's); for a local fake in tests. */
  apiUrl?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export const SLACK_API_URL = 'https://slack.com/api';

/** Slack's `error` codes that no retry fixes (https://api.slack.com/methods/chat.postMessage#errors). */
const PERMANENT = new Set([
  'account_inactive',
  'channel_not_found',
  'invalid_auth',
  'is_archived',
  'missing_scope',
  'msg_too_long',
  'no_text',
  'not_authed',
  'not_in_channel',
  'restricted_action',
  'token_expired',
  'token_revoked',
  'user_not_found',
  'cannot_dm_bot',
]);

export function createSlackChannel(options: SlackChannelOptions): Channel {
  const name = options.name ?? 'slack';
  const timeoutMs = options.timeoutMs ?? CHANNEL_DEFAULTS.timeoutMs;
  const http = options.fetch === undefined ? {} : { fetch: options.fetch };
  if (options.botToken !== undefined) {
    const endpoint = `${(options.apiUrl ?? SLACK_API_URL).replace(/\/+$/, '')}/chat.postMessage`;
    const token = options.botToken;
    return {
      name,
      contact: options.to === undefined ? 'required' : 'optional',
      async send(message: OutgoingMessage, signal: AbortSignal): Promise<DeliveryResult> {
        const post = {
          url: endpoint,
          label: 'slack chat.postMessage',
          body: JSON.stringify({ channel: message.contact ?? options.to, text: message.body }),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
          signal,
          timeoutMs,
          ...http,
        };
        return deliverPost(post, (answer) => (answer.status === 200 ? slackAnswer(answer.text, answer.retryAfterMs) : deliveryOf(answer, 'slack chat.postMessage')));
      },
    };
  }
  const url = options.url as string;
  return {
    name,
    async send(message: OutgoingMessage, signal: AbortSignal): Promise<DeliveryResult> {
      const post = { url, label: 'slack incoming webhook', body: JSON.stringify({ text: message.body }), signal, timeoutMs, ...http };
      return deliverPost(post, (answer) => deliveryOf(answer, 'slack incoming webhook'));
    },
  };
}

/** A 200 from the Web API: `ok` says whether it took the message. */
function slackAnswer(text: string, retryAfterMs: number | null): DeliveryResult {
  let body: { ok?: unknown; error?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return retryLater(`slack chat.postMessage answered 200 with a body that is not JSON`);
  }
  if (body.ok === true) return delivered();
  const error = typeof body.error === 'string' ? body.error : 'unknown_error';
  if (PERMANENT.has(error)) return rejected(`slack refused the message: ${error}`);
  return retryLater(`slack could not take the message: ${error}`, retryAfterMs ?? undefined);
}
