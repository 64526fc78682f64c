/**
 * The ready index: one small SQLite file beside the inbox files that says,
 * per inbox, the earliest time it may have work (`wake_at`: claimable events,
 * due timers or approvals) and the earliest time its outbox may send
 * (`send_at`). `readyInboxes()` reads it through an index, so a worker pool's
 * poll costs what is due, not one file open per inbox.
 *
 * It is a hint kept beside the truth, never the truth: a worker that finds an
 * inbox idle just moves on. The one thing it must never do is hide work, so
 * it keeps the invariant "hint <= truth" across crashes and across processes
 * (see docs/design/ready-index.md): every inbox write transaction first
 * *lowers* the hint while it still holds the inbox's write lock (`lower`),
 * commits, and only then sets the exact value (`settle`), which is refused if
 * a later transaction of the same inbox already lowered it.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { join } from 'node:path';
import { translateSqliteError } from './sqlite-errors.js';
import { enableWal } from './wal.js';

/** Starts with `_`, which no inbox id can (R11), so it never shadows an inbox. */
export const READY_INDEX_FILE = '_vigil-ready.db';

export interface Wake {
  wakeAt: number | null;
  sendAt: number | null;
}

export interface IndexedWake extends Wake {
  seq: number;
  exact: boolean;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS wake (
  inbox_id TEXT    PRIMARY KEY,
  wake_at  INTEGER,             -- claimable events, due timers or approvals from then on
  send_at  INTEGER,             -- the outbox may send from then on
  seq      INTEGER NOT NULL,    -- the inbox's write_seq that wrote this row
  exact    INTEGER NOT NULL     -- 1 once that transaction committed and settled it
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS wake_by_time ON wake (wake_at) WHERE wake_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS send_by_time ON wake (send_at) WHERE send_at IS NOT NULL;
`;

// NULL means "never": lowering keeps whichever time is known and earlier.
const LOWER = `
INSERT INTO wake (inbox_id, wake_at, send_at, seq, exact) VALUES (@id, @wakeAt, @sendAt, @seq, 0)
ON CONFLICT (inbox_id) DO UPDATE SET
  wake_at = CASE WHEN wake.wake_at IS NULL THEN excluded.wake_at
                 WHEN excluded.wake_at IS NULL THEN wake.wake_at
                 ELSE min(wake.wake_at, excluded.wake_at) END,
  send_at = CASE WHEN wake.send_at IS NULL THEN excluded.send_at
                 WHEN excluded.send_at IS NULL THEN wake.send_at
                 ELSE min(wake.send_at, excluded.send_at) END,
  seq = max(wake.seq, excluded.seq),
  exact = 0`;

// A settle from an older transaction than the last lowering is stale: refuse it.
const SETTLE = `
INSERT INTO wake (inbox_id, wake_at, send_at, seq, exact) VALUES (@id, @wakeAt, @sendAt, @seq, 1)
ON CONFLICT (inbox_id) DO UPDATE SET
  wake_at = excluded.wake_at, send_at = excluded.send_at, seq = excluded.seq, exact = 1
WHERE wake.seq <= excluded.seq`;

export class ReadyIndex {
  private readonly db: Db;
  private readonly get: Statement;
  private readonly lowerStmt: Statement;
  private readonly settleStmt: Statement;
  private readonly readyStmt: Statement;
  private readonly sendableStmt: Statement;
  private readonly earliestStmt: Statement;

  constructor(dir: string, busyTimeoutMs: number) {
    const file = join(dir, READY_INDEX_FILE);
    try {
      this.db = new Database(file, { timeout: busyTimeoutMs });
    } catch (error) {
      throw translateSqliteError(error, file);
    }
    try {
      enableWal(this.db, busyTimeoutMs);
      // A hint survives a process crash at NORMAL; after a power loss run
      // store.rebuildReadyIndex().
      this.db.pragma('synchronous = NORMAL');
      this.db.transaction(() => this.db.exec(SCHEMA)).immediate();
    } catch (error) {
      this.db.close();
      throw translateSqliteError(error, file);
    }
    this.get = this.db.prepare('SELECT wake_at AS wakeAt, send_at AS sendAt, seq, exact FROM wake WHERE inbox_id = ?');
    this.lowerStmt = this.db.prepare(LOWER);
    this.settleStmt = this.db.prepare(SETTLE);
    this.readyStmt = this.db
      .prepare('SELECT inbox_id FROM wake WHERE wake_at <= ? ORDER BY wake_at LIMIT ?')
      .pluck();
    this.earliestStmt = this.db.prepare(
      // The WHERE clauses let SQLite answer from the partial indexes: one probe each, not a scan.
      `SELECT (SELECT min(wake_at) FROM wake WHERE wake_at IS NOT NULL) AS wakeAt,
              (SELECT min(send_at) FROM wake WHERE send_at IS NOT NULL) AS sendAt`,
    );
    this.sendableStmt = this.db
      .prepare('SELECT inbox_id FROM wake WHERE send_at <= ? ORDER BY send_at LIMIT ?')
      .pluck();
  }

  current(inboxId: string): IndexedWake | undefined {
    const row = this.get.get(inboxId) as (Wake & { seq: number; exact: number }) | undefined;
    return row && { ...row, exact: row.exact === 1 };
  }

  lower(inboxId: string, wake: Wake, seq: number): void {
    this.lowerStmt.run({ id: inboxId, ...wake, seq });
  }

  /** False when refused: a later transaction has lowered the row since. */
  settle(inboxId: string, wake: Wake, seq: number): boolean {
    return this.settleStmt.run({ id: inboxId, ...wake, seq }).changes === 1;
  }

  ready(now: number, limit: number): string[] {
    return this.readyStmt.all(now, limit) as string[];
  }

  dispatchable(now: number, limit: number): string[] {
    return this.sendableStmt.all(now, limit) as string[];
  }

  /** The earliest wake_at and send_at over all inboxes (two index probes). */
  earliest(): Wake {
    return this.earliestStmt.get() as Wake;
  }

  close(): void {
    this.db.close();
  }
}

/** `a` is a strictly earlier time than `b`, where null means never. */
export function earlier(a: number | null, b: number | null): boolean {
  return a !== null && (b === null || a < b);
}
