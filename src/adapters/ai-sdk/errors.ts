/**
 * A failed provider call, sorted the way the Claude adapter sorts its own:
 * a status the same request will always get again (400, 401, 403, 404,
 * 413, 422, ...) is terminal; 408, 409, 429, 5xx and a lost connection are
 * worth another try. The provider's own `isRetryable` is not trusted for
 * an answered call (some mark 409 or 422 differently): the status decides.
 *
 * The message keeps the provider's words (they say what is wrong) but never
 * the request's URL or body, and anything in it that looks like a key is
 * masked: some APIs echo the key they refused.
 */
import { ModelError } from '../../agent/model.js';

/** The shape of the AI SDK's APICallError, of any major (matched by shape, not class: two copies may be loaded). */
interface ApiCallError {
  name: string;
  message: string;
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function asApiCallError(error: unknown): ApiCallError | null {
  const e = error as Partial<ApiCallError> | null;
  return typeof e === 'object' && e !== null && e.name === 'AI_APICallError' && typeof e.message === 'string' ? (e as ApiCallError) : null;
}

export function toModelError(error: unknown, model: string): ModelError {
  if (error instanceof ModelError) return error;
  const api = asApiCallError(error);
  if (api !== null && typeof api.statusCode === 'number') {
    const status = api.statusCode;
    return new ModelError(`${model}: API error ${status}: ${clip(redact(api.message))}`, isRetryableStatus(status), status, { cause: error });
  }
  if ((api !== null && api.isRetryable === true) || isNetworkError(error)) {
    return new ModelError(`${model}: connection failed: ${clip(redact(messageOf(error)))}`, true, undefined, { cause: error });
  }
  // No key, a prompt the provider will not send, a reply it cannot parse: the same call fails again.
  const name = (error as { name?: unknown } | null)?.name;
  return new ModelError(`${model}: call failed${typeof name === 'string' && name !== 'Error' ? ` (${name})` : ''}: ${clip(redact(messageOf(error)))}`, false, undefined, { cause: error });
}

function isNetworkError(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (current instanceof TypeError && /^(fetch failed|failed to fetch)$/i.test(current.message)) return true;
  }
  return false;
}

/** How long the API asked us to wait (retry-after-ms, then retry-after in seconds), if it did. */
export function retryAfterMs(error: unknown): number | undefined {
  const headers = asApiCallError((error as { cause?: unknown } | null)?.cause ?? error)?.responseHeaders;
  if (headers === undefined) return undefined;
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// Key-like tokens: provider prefixes (sk-, sk-ant-, xai-, gsk_, AIza...), bearer values, and any long opaque run.
const KEYLIKE = /\b(?:sk-[\w-]{8,}|[a-z]{2,5}[-_][\w-]{20,}|AIza[\w-]{20,}|[A-Za-z0-9_-]{32,})\b|(Bearer\s+)\S+/g;

/** The text with anything that looks like a key masked (the adapter never sees the provider's key to name it). */
export function redact(text: string): string {
  return text.replace(KEYLIKE, (_match, bearer: string | undefined) => (bearer === undefined ? '[redacted]' : `${bearer}[redacted]`));
}

function clip(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}...` : text;
}
