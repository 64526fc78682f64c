/**
 * Every refusal the HTTP layer makes is an HttpError with a stable `code`;
 * the app turns it into `{ "error": { "code", "message" } }`. Errors from
 * the store are translated once, here, so a route never guesses a status.
 */
import { isVigilError, QuotaExceededError } from '../errors.js';

export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** The input field at fault, where there is one. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Seconds a client should wait before retrying after a busy or closing store. */
const RETRY_AFTER_SECONDS = '1';

/**
 * A VigilError says whose fault it is: invalid_* is the request's (400);
 * retryable ones (store_busy, store_unavailable) and store_closed are ours
 * and pass (503, retry later; a closing process is replaced). Anything
 * else (a schema too new, a driver failure) is unexpected: null, so the app
 * logs it and answers 500 without details.
 */
export function fromStoreError(error: unknown): HttpError | null {
  if (!isVigilError(error)) return null;
  // An inbox over its quota: the sender's to retry later, when the body says why and Retry-After when.
  if (error instanceof QuotaExceededError) {
    return new HttpError(429, error.code, error.message, { 'Retry-After': String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))) });
  }
  if (error.code === 'operator_only') return new HttpError(403, error.code, error.message, {}, error.field);
  if (error.code.startsWith('invalid_')) return new HttpError(400, error.code, error.message, {}, error.field);
  // A worker holds the inbox, or it holds data already: the request may succeed later, or after a delete.
  if (error.code === 'inbox_busy' || error.code === 'inbox_exists' || error.code === 'not_unknown') return new HttpError(409, error.code, error.message);
  if (error.retryable || error.code === 'store_closed') {
    return new HttpError(503, error.code, 'the store is unavailable right now; retry later', { 'Retry-After': RETRY_AFTER_SECONDS });
  }
  return null;
}

export function errorBody(error: HttpError): { error: { code: string; message: string; field?: string } } {
  return { error: { code: error.code, message: error.message, ...(error.field === undefined ? {} : { field: error.field }) } };
}
