/**
 * PostgreSQL's transient failures become VigilErrors a caller can act on;
 * everything else (a bug, a constraint nobody expected) passes through.
 */
import { VigilError } from '../../errors.js';
import { memoryFull } from '../agent-state.js';

// Class 08 (connection exception) plus: admin/crash shutdown, cannot connect
// now, serialization failure, deadlock, lock not available, too many connections.
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '40001', '40P01', '55P03', '53300']);
const TRANSIENT_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN']);

/** character_not_in_repertoire: a string with U+0000, which SQLite stores and PostgreSQL's text cannot. */
const NUL_IN_TEXT = '22021';

/** True for failures where the same call may succeed later. */
export function isTransient(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('08') || TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NODE_CODES.has(code))) {
    return true;
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

/** Raised by vigil_finish (functions/finish.sql) when memory would outgrow its limit. */
const MEMORY_FULL = 'VG001';

export function translate(error: unknown): unknown {
  if (error instanceof VigilError) return error;
  if ((error as { code?: unknown } | null)?.code === MEMORY_FULL) {
    return memoryFull(Number((error as { detail?: unknown }).detail));
  }
  if ((error as { code?: unknown } | null)?.code === NUL_IN_TEXT) {
    return new VigilError('invalid_argument', 'PostgreSQL text cannot hold the NUL character (\\u0000); nothing was stored', {
      cause: error,
    });
  }
  if (!isTransient(error)) return error;
  return new VigilError(
    'store_busy',
    `PostgreSQL is unavailable (${(error as Error).message}); the operation rolled back unless it was already committing: try again`,
    { cause: error },
  );
}
