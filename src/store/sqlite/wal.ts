/**
 * Switches a connection to WAL, waiting (up to busyTimeoutMs) for other
 * processes that are switching the same new file at the same moment.
 *
 * SQLite's busy timeout does not cover this: converting a rollback-journal
 * file to WAL upgrades a read lock to a write lock, and when another
 * connection already holds the write lock SQLite returns SQLITE_BUSY at once
 * instead of waiting (its deadlock rule). Several processes creating the same
 * store directory or inbox file together would then fail at random (R12).
 * Once a file is in WAL the pragma only reads, so this retries only while
 * files are brand new.
 */
import type { Database } from 'better-sqlite3';

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

export function enableWal(db: Database, busyTimeoutMs: number): void {
  const deadline = performance.now() + busyTimeoutMs;
  for (let pauseMs = 1; ; pauseMs = Math.min(pauseMs * 2, 50)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw error;
    }
    Atomics.wait(pauseCell, 0, 0, pauseMs); // a blocking pause, as SQLite's own busy wait is
  }
}
