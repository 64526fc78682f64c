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
 * a later transaction of the same inbox already lowered it. When nothing
 * moves later, the lowered value is the exact one: one write, before the
 * commit.
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { join } from 'node:path';
import { migrate, READY_INDEX_SCHEMA } from './migrate.js';
import { translateSqliteError } from './sqlite-errors.js';
import { enableWal } from './wal.js';
import { boundLimit } from './bound-limit.js';

/** Starts with `_`, which no inbox id can (R11), so it never shadows an inbox. */
export const READY_INDEX_FILE = '_vigil-ready.db';

export interface Wake {
  wakeAt: number | null;
  sendAt: number | null;
  /** How many dead events the inbox holds (for the dashboard's "needs attention"). */
  dead: number;
}

export interface IndexedWake extends Wake {
  seq: number;
  exact: boolean;
}

/** A page of the overview, read from the index alone. */
export interface ListedInbox {
  id: string;
  wakeAt: number | null;
}

export interface InboxPageQuery {
  search: string | null;
  after: string | null;
  limit: number;
  attention: boolean;
  /** Work due at or before this is stuck. */
  stuckBefore: number;
}

// NULL means "never": lowering keeps whichever time is known and earlier,
// and the larger dead count (the hint may over-warn, never hide a dead event).
const LOWER = `
INSERT INTO wake (inbox_id, wake_at, send_at, seq, exact, dead) VALUES (@id, @wakeAt, @sendAt, @seq, 0, @dead)
ON CONFLICT (inbox_id) DO UPDATE SET
  wake_at = CASE WHEN wake.wake_at IS NULL THEN excluded.wake_at
                 WHEN excluded.wake_at IS NULL THEN wake.wake_at
                 ELSE min(wake.wake_at, excluded.wake_at) END,
  send_at = CASE WHEN wake.send_at IS NULL THEN excluded.send_at
                 WHEN excluded.send_at IS NULL THEN wake.send_at
                 ELSE min(wake.send_at, excluded.send_at) END,
  seq = max(wake.seq, excluded.seq),
  exact = 0,
  dead = max(wake.dead, excluded.dead)`;

// A settle from an older transaction than the last lowering is stale: refuse it.
const SETTLE = `
INSERT INTO wake (inbox_id, wake_at, send_at, seq, exact, dead) VALUES (@id, @wakeAt, @sendAt, @seq, 1, @dead)
ON CONFLICT (inbox_id) DO UPDATE SET
  wake_at = excluded.wake_at, send_at = excluded.send_at, seq = excluded.seq, exact = 1, dead = excluded.dead
WHERE wake.seq <= excluded.seq`;

// The same settle for a row whose other time already is the exact one, as the WHERE makes sure: it
// leaves that time's index alone, one page fewer in the commit (~20 µs of an index commit's ~65 on disk).
const SETTLE_WAKE = `
UPDATE wake SET wake_at = @wakeAt, seq = @seq, exact = 1, dead = @dead
WHERE inbox_id = @id AND seq <= @seq AND send_at IS @sendAt`;
const SETTLE_SEND = `
UPDATE wake SET send_at = @sendAt, seq = @seq, exact = 1, dead = @dead
WHERE inbox_id = @id AND seq <= @seq AND wake_at IS @wakeAt`;

// The overview's filters (listInboxes): by id, a substring in any case (ids are ASCII), and "needs a person".
const PAGE_FILTER = `
(@search IS NULL OR instr(lower(inbox_id), lower(@search)) > 0)
AND (@attention = 0 OR dead > 0 OR wake_at <= @stuckBefore)`;

export class ReadyIndex {
  private readonly db: Db;
  private readonly get: Statement;
  private readonly lowerStmt: Statement;
  private readonly settleStmt: Statement;
  private readonly settleWakeStmt: Statement;
  private readonly settleSendStmt: Statement;
  private readonly readyStmt: Statement;
  private readonly sendableStmt: Statement;
  private readonly earliestStmt: Statement;
  private readonly pageStmt: Statement;
  private readonly totalStmt: Statement;
  private readonly attentionStmt: Statement;
  private readonly sameIgnoringCaseStmt: Statement;
  private readonly rebuiltStmt: Statement;
  private readonly markRebuiltStmt: Statement;
  private readonly forgetStmt: Statement;

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
      migrate(this.db, file, READY_INDEX_SCHEMA);
    } catch (error) {
      this.db.close();
      throw translateSqliteError(error, file);
    }
    this.get = this.db.prepare('SELECT wake_at AS wakeAt, send_at AS sendAt, seq, exact, dead FROM wake WHERE inbox_id = ?');
    this.lowerStmt = this.db.prepare(LOWER);
    this.settleStmt = this.db.prepare(SETTLE);
    this.settleWakeStmt = this.db.prepare(SETTLE_WAKE);
    this.settleSendStmt = this.db.prepare(SETTLE_SEND);
    this.readyStmt = this.db
      .prepare(`SELECT inbox_id FROM wake WHERE wake_at <= ? ORDER BY wake_at ${boundLimit('?')}`)
      .pluck();
    this.earliestStmt = this.db.prepare(
      // The WHERE clauses let SQLite answer from the partial indexes: one probe each, not a scan.
      `SELECT (SELECT min(wake_at) FROM wake WHERE wake_at IS NOT NULL) AS wakeAt,
              (SELECT min(send_at) FROM wake WHERE send_at IS NOT NULL) AS sendAt`,
    );
    this.sendableStmt = this.db
      .prepare(`SELECT inbox_id FROM wake WHERE send_at <= ? ORDER BY send_at ${boundLimit('?')}`)
      .pluck();
    // A range of the primary key (ids in order), filtered: the cost follows the page.
    this.pageStmt = this.db.prepare(
      `SELECT inbox_id AS id, wake_at AS wakeAt FROM wake WHERE inbox_id > @after AND ${PAGE_FILTER} ORDER BY inbox_id ${boundLimit('@limit')}`,
    );
    this.totalStmt = this.db.prepare(`SELECT count(*) FROM wake WHERE ${PAGE_FILTER}`).pluck();
    this.attentionStmt = this.db.prepare('SELECT count(*) FROM wake WHERE dead > 0 OR wake_at <= ?').pluck();
    this.sameIgnoringCaseStmt = this.db
      .prepare('SELECT inbox_id FROM wake WHERE inbox_id = ? COLLATE NOCASE AND inbox_id <> ? LIMIT 1')
      .pluck();
    this.rebuiltStmt = this.db.prepare('SELECT boot FROM rebuilt WHERE one = 1').pluck();
    this.markRebuiltStmt = this.db.prepare('INSERT OR REPLACE INTO rebuilt (one, boot) VALUES (1, ?)');
    this.forgetStmt = this.db.prepare('DELETE FROM wake WHERE inbox_id = ?');
  }

  /** The boot in which the whole index was last re-derived from the inbox files; undefined if never. */
  rebuiltInBoot(): string | undefined {
    return this.rebuiltStmt.get() as string | undefined;
  }

  markRebuilt(boot: string): void {
    this.markRebuiltStmt.run(boot);
  }

  /** Drops an inbox's row: for one whose file turned out to be another inbox's. */
  forget(inboxId: string): void {
    this.forgetStmt.run(inboxId);
  }

  current(inboxId: string): IndexedWake | undefined {
    const row = this.get.get(inboxId) as (Omit<IndexedWake, 'exact'> & { exact: number }) | undefined;
    return row && { ...row, exact: row.exact === 1 };
  }

  lower(inboxId: string, wake: Wake, seq: number): void {
    this.lowerStmt.run({ id: inboxId, ...wake, seq });
  }

  /**
   * False when refused: a later transaction has lowered the row since.
   * `row`, the row as the caller last read or wrote it, lets a settle that
   * keeps one of its times write only the other; should the row have
   * changed meanwhile, the whole row is written as without it.
   */
  settle(inboxId: string, wake: Wake, seq: number, row?: Wake): boolean {
    const params = { id: inboxId, ...wake, seq };
    let narrow: Statement | undefined;
    if (row?.sendAt === wake.sendAt) narrow = this.settleWakeStmt;
    else if (row?.wakeAt === wake.wakeAt) narrow = this.settleSendStmt;
    if (narrow !== undefined && narrow.run(params).changes === 1) return true;
    return this.settleStmt.run(params).changes === 1;
  }

  ready(now: number, limit: number): string[] {
    return this.readyStmt.all(now, limit) as string[];
  }

  dispatchable(now: number, limit: number): string[] {
    return this.sendableStmt.all(now, limit) as string[];
  }

  /** The earliest wake_at and send_at over all inboxes (two index probes). */
  earliest(): Omit<Wake, 'dead'> {
    return this.earliestStmt.get() as Omit<Wake, 'dead'>;
  }

  /**
   * A page of inbox ids in order, with how many match over all pages and how
   * many of every inbox need attention (dead events, or work due at or
   * before `stuckBefore`). One read transaction, so the three agree.
   */
  page(query: InboxPageQuery): { inboxes: ListedInbox[]; total: number; needAttention: number } {
    const params = {
      search: query.search,
      attention: query.attention ? 1 : 0,
      stuckBefore: query.stuckBefore,
    };
    return this.db.transaction(() => ({
      inboxes: this.pageStmt.all({ ...params, after: query.after ?? '', limit: query.limit }) as ListedInbox[],
      total: this.totalStmt.get(params) as number,
      needAttention: this.attentionStmt.get(query.stuckBefore) as number,
    }))();
  }

  /** An inbox whose id equals this one's ignoring case (the contract refuses the second), if the index knows one. */
  sameIgnoringCase(inboxId: string): string | undefined {
    return this.sameIgnoringCaseStmt.get(inboxId, inboxId) as string | undefined;
  }

  close(): void {
    this.db.close();
  }
}

/** `a` is a strictly earlier time than `b`, where null means never. */
export function earlier(a: number | null, b: number | null): boolean {
  return a !== null && (b === null || a < b);
}

/**
 * `wake` moves no field of `row` later: no time later (null is never), no
 * fewer dead events. Then lowering `row` to `wake` writes `wake` itself.
 * True when there is no row yet.
 */
export function noneLater(wake: Wake, row: Wake | undefined): boolean {
  return row === undefined || (!earlier(row.wakeAt, wake.wakeAt) && !earlier(row.sendAt, wake.sendAt) && wake.dead >= row.dead);
}
