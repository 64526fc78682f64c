/**
 * Ended dashboard sessions on the SQLite store: one small file beside the
 * inbox files (`_vigil-sessions.db`), shared by every process on the store
 * directory. Unlike the ready index it is written with a full sync: a
 * sign-out must survive a power loss, or a session someone signed out of
 * would work again after the machine restarts.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { join } from 'node:path';
import { translateSqliteError } from './sqlite-errors.js';
import { enableWal } from './wal.js';

/** Starts with `_`, which no inbox id can (R11), so it never shadows an inbox. */
export const ENDED_SESSIONS_FILE = '_vigil-sessions.db';

export class EndedSessions {
  private readonly file: string;
  private readonly db: Db;
  private readonly insert: Statement<[string, number]>;
  private readonly forget: Statement<[number]>;
  private readonly find: Statement<[string]>;

  constructor(dir: string, busyTimeoutMs: number) {
    this.file = join(dir, ENDED_SESSIONS_FILE);
    try {
      this.db = new Database(this.file, { timeout: busyTimeoutMs });
      enableWal(this.db, busyTimeoutMs);
      this.db.pragma('synchronous = FULL');
      this.db.exec('CREATE TABLE IF NOT EXISTS ended_sessions (session_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) STRICT');
      this.insert = this.db.prepare(
        'INSERT INTO ended_sessions (session_id, expires_at) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)',
      );
      this.forget = this.db.prepare('DELETE FROM ended_sessions WHERE expires_at <= ?');
      this.find = this.db.prepare('SELECT 1 FROM ended_sessions WHERE session_id = ?');
    } catch (error) {
      throw translateSqliteError(error, this.file);
    }
  }

  /** Records the end; sessions past their expiry are forgotten in the same transaction. */
  end(sessionId: string, expiresAt: number, now: number): void {
    try {
      this.db.transaction(() => {
        this.forget.run(now);
        if (expiresAt > now) this.insert.run(sessionId, expiresAt);
      }).immediate();
    } catch (error) {
      throw translateSqliteError(error, this.file);
    }
  }

  ended(sessionId: string): boolean {
    try {
      return this.find.get(sessionId) !== undefined;
    } catch (error) {
      throw translateSqliteError(error, this.file);
    }
  }

  close(): void {
    this.db.close();
  }
}
