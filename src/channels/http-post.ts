/**
 * A JSON POST for the HTTP channels, and what its answer means for the
 * delivery: a 2xx is delivered; 408, 425, 429 and 5xx are worth another try
 * (after Retry-After, when the receiver says); any other status is the
 * request's own fault and will fail again: rejected, with the start of the
 * response body in the reason so an operator sees why. A connection that
 * fails before the whole request was written throws (the dispatcher
 * retries: the receiver cannot have it); one that times out or drops after
 * it was written, before an answer, is uncertain (the receiver may have it).
 *
 * Node's http/https request, not fetch: only it tells when the request was
 * handed to the operating system whole ('finish'), which is what separates
 * "not sent" from "maybe sent". No redirect is followed (a 3xx is rejected),
 * as fetch's `redirect: 'error'` did.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { retryLater, rejected, delivered, uncertain, type DeliveryResult } from './channel.js';

export interface PostOptions {
  url: string;
  /** Names the receiver in errors. Not the URL: a Slack webhook URL is itself the secret. */
  label: string;
  body: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
  /** A fetch to send with instead (a test's, a proxy's): it cannot tell a request written from one not, so no send is ever uncertain. */
  fetch?: typeof fetch;
}

export interface HttpAnswer {
  status: number;
  text: string;
  /** From Retry-After (seconds or an HTTP date), or null. */
  retryAfterMs: number | null;
}

/** The request went out whole and no answer came: the receiver may or may not have it. */
export class SendUncertain extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SendUncertain';
  }
}

const SNIPPET_CHARS = 200;
/** An answer's body is read up to this much: only its start is ever shown. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** POSTs and reads what the answer means (`interpret`); a send that may have landed unanswered is `uncertain`. */
export async function deliverPost(options: PostOptions, interpret: (answer: HttpAnswer) => DeliveryResult): Promise<DeliveryResult> {
  try {
    return interpret(await postJson(options));
  } catch (error) {
    if (error instanceof SendUncertain) return uncertain(error.message);
    throw error;
  }
}

export async function postJson(options: PostOptions): Promise<HttpAnswer> {
  refuseUnsendable(options.headers ?? {}, options.label);
  if (options.fetch !== undefined) return postWithFetch(options, options.fetch);
  const { url, label, body, headers = {}, signal, timeoutMs } = options;
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : null;
  if (send === null) throw new Error(`${label}: only http and https URLs can be posted to`);
  signal.throwIfAborted();
  const deadline = AbortSignal.timeout(timeoutMs);
  return new Promise<HttpAnswer>((resolve, reject) => {
    let written = false;
    let answered = false;
    const req = send(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
      signal: AbortSignal.any([signal, deadline]),
    });
    const fail = (error: unknown): void => {
      // The timeout's own message ("The operation was aborted") names neither the receiver nor the
      // deadline; an operator reading the log needs both.
      const timedOut = deadline.aborted && !signal.aborted;
      if (written && !answered) {
        const what = timedOut ? `${label} did not answer within ${timeoutMs} ms` : `${label}: the connection ended before an answer`;
        reject(new SendUncertain(`${what}, after the request was sent: it may have landed`, { cause: error }));
      } else if (timedOut) {
        reject(new Error(`${label} did not answer within ${timeoutMs} ms`, { cause: error }));
      } else if (signal.aborted && signal.reason instanceof Error) {
        reject(signal.reason);
      } else {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    req.on('finish', () => {
      written = true;
    });
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (): void =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), retryAfterMs: retryAfter(headerOf(res, 'retry-after')) });
      res.on('data', (chunk: Buffer) => {
        if (size < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
        size += chunk.length;
      });
      // The status decides; a body cut short only shortens the snippet.
      res.on('end', answer);
      res.on('error', answer);
      res.on('aborted', answer);
    });
    req.end(body);
  });
}

async function postWithFetch({ url, label, body, headers = {}, signal, timeoutMs }: PostOptions, doFetch: typeof fetch): Promise<HttpAnswer> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.any([signal, deadline]),
      redirect: 'error',
    });
  } catch (error) {
    if (deadline.aborted && !signal.aborted) throw new Error(`${label} did not answer within ${timeoutMs} ms`, { cause: error });
    throw error;
  }
  // Read the body either way: an unread body keeps the connection busy.
  const text = await response.text().catch(() => '');
  return { status: response.status, text, retryAfterMs: retryAfter(response.headers.get('retry-after')) };
}

function headerOf(res: IncomingMessage, name: string): string | null {
  const value = res.headers[name];
  return value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : value;
}

/**
 * fetch (and node:http) refuse a header value with a line break or a NUL; fetch with an error that
 * quotes the whole value: `Authorization: Bearer <token>`, token and all,
 * in the log on every retry. Checked first, so that the error names the
 * header only. (The config refuses such secrets at startup; this holds for
 * a channel built in code.)
 */
function refuseUnsendable(headers: Record<string, string>, label: string): void {
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n\0]/.test(value)) throw new Error(`${label}: the ${name} header has a line break or a NUL, which no HTTP header may carry (value not shown)`);
  }
}

/** What an HTTP answer means for the delivery (see the module comment). */
export function deliveryOf(answer: HttpAnswer, label: string): DeliveryResult {
  if (answer.status >= 200 && answer.status < 300) return delivered();
  const snippet = answer.text.length > SNIPPET_CHARS ? `${answer.text.slice(0, SNIPPET_CHARS)}…` : answer.text;
  const reason = `${label} answered ${answer.status}${snippet === '' ? '' : `: ${snippet}`}`;
  if (isWorthRetrying(answer.status)) return retryLater(reason, answer.retryAfterMs ?? undefined);
  return rejected(reason);
}

function isWorthRetrying(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

function retryAfter(header: string | null): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}
