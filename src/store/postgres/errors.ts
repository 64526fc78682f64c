/**
 * PostgreSQL's transient failures become VigilErrors a caller can act on;
 * everything else (a bug, a constraint nobody expected) passes through.
 * Two kinds, as on the SQLite store: other transactions were in the way
 * (store_busy), or the server or the way to it is down (store_unavailable).
 * Both are retryable, and the transaction rolled back unless it was
 * already committing.
 */
import { VigilError } from '../../errors.js';
import { memoryFull } from '../engine/validate/index.js';

/** Serialization failure, deadlock, lock not available: another transaction won; the same call may succeed now. */
const CONTENTION_SQLSTATES = new Set(['40001', '40P01', '55P03']);
// Class 08 (connection exception) plus: admin/crash shutdown, cannot connect
// now (starting or stopping), too many connections, and a database that
// refuses writes (read_only_sql_transaction: a standby, or one an operator
// set read-only): it answers reads, and takes writes again once fixed.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);
/** What pg says, without a code, when a connection ends or cannot be made in time. */
const UNAVAILABLE_MESSAGE = /Connection terminated|connection timeout|Client has encountered a connection error/i;

type Transient = 'busy' | 'unavailable';

function transientKind(error: unknown): Transient | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONTENTION_SQLSTATES.has(code)) return 'busy';
    if (code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_NODE_CODES.has(code)) return 'unavailable';
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message) ? 'unavailable' : null;
}

/** character_not_in_repertoire: a string with U+0000, which SQLite stores and PostgreSQL's text cannot. */
const NUL_IN_TEXT = '22021';

/** True for failures where the same call may succeed later. */
export function isTransient(error: unknown): boolean {
  return transientKind(error) !== null;
}

/** True when the server or the way to it is down: the connection the call was on is gone. */
export function isUnavailable(error: unknown): boolean {
  return transientKind(error) === 'unavailable';
}

/** Raised by vigil_finish (functions/finish.sql) when memory would outgrow its limit. */
const MEMORY_FULL = 'VG001';

/** Raised by vigil_lock_inbox (functions/inbox-lock.sql): an inbox whose id differs only in case exists (contract.ts). */
const CASE_COLLISION = 'VG002';

export function translate(error: unknown): unknown {
  if (error instanceof VigilError) return error;
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  if (code === CASE_COLLISION || (code === '23505' && constraint === 'inboxes_id_ignoring_case')) {
    return new VigilError(
      'invalid_inbox_id',
      'this inbox cannot be created: another inbox has the same id in another case, and two inbox ids may not differ only in case',
      { cause: error },
    );
  }
  if ((error as { code?: unknown } | null)?.code === MEMORY_FULL) {
    return memoryFull(Number((error as { detail?: unknown }).detail));
  }
  if ((error as { code?: unknown } | null)?.code === NUL_IN_TEXT) {
    return new VigilError('invalid_argument', 'PostgreSQL text cannot hold the NUL character (\\u0000); nothing was stored', {
      cause: error,
    });
  }
  const kind = transientKind(error);
  if (kind === null) return error;
  const message = (error as Error).message;
  if (kind === 'busy') {
    return new VigilError('store_busy', `PostgreSQL refused the transaction in favour of another (${message}); it rolled back: try again`, {
      cause: error,
    });
  }
  return new VigilError(
    'store_unavailable',
    `PostgreSQL is unavailable (${message}); the operation rolled back unless it was already committing: try again`,
    { cause: error },
  );
}
