/**
 * Every error the engine throws on purpose is a VigilError with a stable
 * string `code`: callers branch on the code, people read the message.
 */
export type VigilErrorCode =
  | 'invalid_event'
  | 'invalid_inbox_id'
  | 'invalid_timer'
  | 'invalid_argument'
  | 'invalid_memory'
  | 'invalid_settings'
  | 'memory_full'
  | 'invalid_options'
  | 'invalid_store_url'
  | 'inbox_busy'
  | 'inbox_exists'
  | 'store_closed'
  | 'store_busy'
  | 'store_unavailable'
  | 'schema_too_new'
  | 'operator_only'
  | 'inbox_full'
  | 'rate_limited'
  /** settleEffect on a call that is not unknown (contract/effects.ts). */
  | 'not_unknown';

export class VigilError extends Error {
  readonly code: VigilErrorCode;
  /** The input field at fault, where one is (`outbox.quietHours.timeZone`), for an API to name. */
  readonly field: string | undefined;

  constructor(code: VigilErrorCode, message: string, options?: { cause?: unknown; field?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VigilError';
    this.code = code;
    this.field = options?.field;
  }

  /**
   * Retryable errors say nothing about the input: the same call may succeed
   * later (a busy database, a disk that fills up and is freed again).
   * Everything else is the caller's to fix.
   */
  get retryable(): boolean {
    return this.code === 'store_busy' || this.code === 'store_unavailable';
  }
}

export function isVigilError(value: unknown, code?: VigilErrorCode): value is VigilError {
  return value instanceof VigilError && (code === undefined || value.code === code);
}

/**
 * A delivery from outside refused by its inbox's quota (inbox_full,
 * rate_limited): nothing was stored; the sender may try again after
 * `retryAfterMs`. A class of its own so the HTTP layer can say when
 * (Retry-After) without parsing a message.
 */
export class QuotaExceededError extends VigilError {
  constructor(
    code: 'inbox_full' | 'rate_limited',
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(code, message);
    this.name = 'QuotaExceededError';
  }
}
