/**
 * A JSON POST for the HTTP channels, and what its answer means for the
 * delivery: a 2xx is delivered; 408, 425, 429 and 5xx are worth another try
 * (after Retry-After, when the receiver says); any other status is the
 * request's own fault and will fail again: rejected, with the start of the
 * response body in the reason so an operator sees why. A lost connection
 * or a timeout throws (the dispatcher retries).
 */
import { retryLater, rejected, delivered, type DeliveryResult } from './channel.js';

export interface PostOptions {
  url: string;
  /** Names the receiver in errors. Not the URL: a Slack webhook URL is itself the secret. */
  label: string;
  body: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export interface HttpAnswer {
  status: number;
  text: string;
  /** From Retry-After (seconds or an HTTP date), or null. */
  retryAfterMs: number | null;
}

const SNIPPET_CHARS = 200;

export async function postJson({ url, label, body, headers = {}, signal, timeoutMs, fetch: doFetch = fetch }: PostOptions): Promise<HttpAnswer> {
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
    // The timeout's own message ("The operation was aborted due to timeout") names
    // neither the receiver nor the deadline; an operator reading the log needs both.
    if (deadline.aborted && !signal.aborted) throw new Error(`${label} did not answer within ${timeoutMs} ms`, { cause: error });
    throw error;
  }
  // Read the body either way: an unread body keeps the connection busy.
  const text = await response.text().catch(() => '');
  return { status: response.status, text, retryAfterMs: retryAfter(response.headers.get('retry-after')) };
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
