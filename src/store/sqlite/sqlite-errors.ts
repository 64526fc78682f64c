/**
 * SQLite's own errors, turned once, at the store's edge, into VigilErrors a
 * caller can act on. Busy: try again. Disk full, read-only or unreadable
 * files: the store is unavailable until an operator fixes the disk; nothing
 * was written (the transaction rolled back).
 */
import { accessSync, constants } from 'node:fs';
import { VigilError } from '../../errors.js';

const UNAVAILABLE: Record<string, string> = {
  SQLITE_FULL: 'the disk is full',
  SQLITE_READONLY: 'the data directory or file is read-only',
  SQLITE_CANTOPEN: 'a database file cannot be opened',
  SQLITE_PERM: 'access to a database file was denied',
  SQLITE_IOERR: 'the disk reported an I/O error',
  SQLITE_CORRUPT: 'a database file is corrupt',
  SQLITE_NOTADB: 'a file in the data directory is not a SQLite database',
};

export function translateSqliteError(error: unknown, file: string): unknown {
  if (error instanceof VigilError) return error;
  const code = (error as { code?: string }).code;
  if (typeof code !== 'string') return error;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_BUSY_')) {
    return new VigilError('store_busy', `${file} stayed locked by another writer past busyTimeoutMs; try again`, { cause: error });
  }
  // Extended codes (SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED…) share their primary code's meaning.
  const primary = code.split('_').slice(0, 2).join('_');
  const reason = UNAVAILABLE[primary];
  if (reason !== undefined) {
    return new VigilError('store_unavailable', `${reason} (${code} on ${file}); nothing was written`, { cause: error });
  }
  return error;
}

/**
 * SQLite opens a file it may not write (a read-only mount, no write
 * permission) read-only, without saying so. Kept in the store's cache,
 * that connection refused every write even after the file system was
 * writable again, until the process restarted. Called right after an
 * open: the caller closes the connection and the next call opens afresh.
 */
export function assertWritable(file: string): void {
  try {
    accessSync(file, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EACCES';
    throw new VigilError('store_unavailable', `the data directory or file is read-only (${code} on ${file}); nothing was written`, { cause: error });
  }
}
