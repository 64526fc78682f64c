/**
 * One open inbox file: pragmas, migrations, a cache of prepared statements,
 * and the write transaction every rule runs in (R10: each operation is one
 * BEGIN IMMEDIATE transaction; a crash at any point leaves the file consistent).
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import type { ResolvedOptions } from '../options.js';
import { migrate, useIncrementalVacuum } from './migrate.js';
import { translateSqliteError } from './sqlite-errors.js';
import { earlier, noneLater, type IndexedWake, type ReadyIndex, type Wake } from './ready-index.js';
import { enableWal } from './wal.js';
import { computeWake } from './wake.js';

const READ_SEQ = 'SELECT write_seq FROM meta WHERE one = 1';
const READ_META = 'SELECT write_seq, deleted FROM meta WHERE one = 1';
const READ_DELETED = 'SELECT deleted FROM meta WHERE one = 1';
const NEXT_SEQ = 'UPDATE meta SET write_seq = write_seq + 1 WHERE one = 1 RETURNING write_seq';
/** WAL pages between checkpoints for a connection taking bursts (checkpointLessOften); SQLite's default is 1,000. */
const LARGE_WAL_PAGES = 4000;

export interface WriteOptions {
  /**
   * `process`: the commit survives a process crash but skips the fsync, so a
   * power loss may undo it. Only for lease and claim state (a power loss also
   * stops every worker on this machine that could act on it, and the next
   * durable commit on the file syncs these frames with its own) and for
   * re-deriving the ready index (reindex).
   */
  durability?: 'durable' | 'process';
  /** The transaction only inserts pending events (ingest): lets an inbox that is already due skip the wake query. */
  addsEventsOnly?: boolean;
  /** Recompute and rewrite the ready index entry even if it looks settled. */
  force?: boolean;
}

/**
 * Thrown from inside a transaction on a file that deleteInbox marked
 * deleted (meta.deleted), by this process or another: the transaction rolls
 * back, and the store lets the file go and opens the inbox again by its
 * name (SqliteStore.use), where a new file, or none, is now.
 */
export class InboxFileDeleted extends Error {
  constructor(readonly inboxId: string) {
    super(`inbox ${inboxId}'s file was deleted`);
  }
}

export class InboxDb {
  readonly db: Db;
  private readonly statements = new Map<string, Statement>();
  private readonly runInTransaction: { immediate: (fn: () => unknown) => unknown };
  /** The index row as this connection last settled it, while still current. */
  private lastSettled: IndexedWake | undefined;
  private largeWal = false;
  /** The file this connection opened: deleteInbox removes the name only while it still leads there. */
  readonly inode: number;

  constructor(
    readonly inboxId: string,
    readonly file: string,
    readonly options: ResolvedOptions,
    private readonly index: ReadyIndex,
    private readonly now: () => number,
  ) {
    try {
      this.db = new Database(file, { timeout: options.busyTimeoutMs });
    } catch (error) {
      throw translateSqliteError(error, file);
    }
    try {
      useIncrementalVacuum(this.db, 'new');
      enableWal(this.db, options.busyTimeoutMs);
      this.db.pragma(`synchronous = ${options.synchronous.toUpperCase()}`);
      this.db.pragma('foreign_keys = ON');
      migrate(this.db, file);
      useIncrementalVacuum(this.db, 'existing');
    } catch (error) {
      this.db.close();
      throw translateSqliteError(error, this.file);
    }
    this.runInTransaction = this.db.transaction((fn: () => unknown) => fn());
    this.inode = statSync(file).ino;
  }

  /**
   * From now on checkpoint every 4,000 WAL pages (16 MiB at most) instead of
   * SQLite's 1,000: for a connection taking bursts of deliveries. The dedupe
   * index of random delivery ids puts nearly every event on its own page,
   * so a small WAL holds few repeats and each checkpoint writes and syncs
   * almost every page it saw; a larger one writes each hot page once for
   * many commits (15–20% more events/s in a 64-caller burst test with
   * 100,000 events stored). Not the default: a WAL that is still growing
   * costs each synced commit more than one being reused, so one-at-a-time
   * writers do better with the small one (~25% on single ingests).
   */
  checkpointLessOften(): void {
    if (this.largeWal) return;
    this.largeWal = true;
    this.db.pragma(`wal_autocheckpoint = ${LARGE_WAL_PAGES}`);
  }

  /** A prepared statement, compiled once per open file and reused. */
  stmt(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `fn` in one BEGIN IMMEDIATE transaction. `now` is read after the
   * write lock is taken, so a writer that waited for the lock never acts on
   * a time from before another writer's commit.
   *
   * Around the commit it keeps the ready index's promise (never later than
   * the truth, docs/design/ready-index.md): lower the hint before COMMIT
   * while the inbox is still locked, settle the exact value after; when the
   * exact value moves nothing later, it is the lowered one, written once
   * before COMMIT. A transaction that leaves the hint as it is writes
   * nothing to the index and no `meta` page.
   */
  write<T>(fn: (now: number) => T, options: WriteOptions = {}): T {
    const { durability = 'durable', addsEventsOnly = false, force = false } = options;
    let seq = 0;
    let wake: Wake = { wakeAt: null, sendAt: null, dead: 0 };
    let needsLower = true;
    let unchanged = false;
    let settledEarly = false;
    let before: ReturnType<ReadyIndex['current']>;
    const relaxed = durability === 'process' && this.options.synchronous === 'full';
    if (relaxed) this.stmt('PRAGMA synchronous = NORMAL').run();
    try {
      const result = this.guard(
        () =>
          this.runInTransaction.immediate(() => {
            const now = this.now();
            const value = fn(now);
            const meta = this.stmt(READ_META).get() as { write_seq: number; deleted: number };
            if (meta.deleted === 1) throw new InboxFileDeleted(this.inboxId);
            const writeSeq = meta.write_seq;
            // Our own last settle still stands if no transaction has touched the index since
            // (every one that does takes a new write_seq): no need to read the index file.
            before = this.lastSettled?.seq === writeSeq ? this.lastSettled : this.index.current(this.inboxId);
            // Exact, and settled by the last transaction that touched it: no settle can still land.
            const settled = !force && before?.exact === true && before.seq === writeSeq;
            // New pending events cannot make an inbox that is already due any more due
            // (unless it is debounced: a new event moves its wake later).
            if (settled && addsEventsOnly && before!.wakeAt !== null && before!.wakeAt <= now && !this.debounced()) {
              unchanged = true;
              return value;
            }
            wake = computeWake(this, now);
            if (settled && before!.wakeAt === wake.wakeAt && before!.sendAt === wake.sendAt && before!.dead === wake.dead) {
              unchanged = true;
              return value;
            }
            seq = this.stmt(NEXT_SEQ).pluck().get() as number;
            // From here the index may hold a row of this transaction's seq, committed or not.
            this.lastSettled = undefined;
            // Lowering would write the exact values: write them as settled now. Should the
            // commit fail, the row is still no later than the truth, and its seq, which the
            // file never reaches, tells the next transaction it is not settled. Refused only
            // when the row holds a later seq than the file (a lost commit's lowering): lower it.
            if (noneLater(wake, before) && this.index.settle(this.inboxId, wake, seq, before)) {
              settledEarly = true;
              return value;
            }
            needsLower =
              !settled || earlier(wake.wakeAt, before!.wakeAt) || earlier(wake.sendAt, before!.sendAt) || wake.dead > before!.dead;
            if (needsLower) this.index.lower(this.inboxId, wake, seq);
            return value;
          }) as T,
      );
      if (settledEarly) {
        this.lastSettled = { ...wake, seq, exact: true };
      } else if (!unchanged) {
        try {
          // Unless it was lowered, the row is still as this transaction read it.
          if (this.index.settle(this.inboxId, wake, seq, needsLower ? undefined : before)) this.lastSettled = { ...wake, seq, exact: true };
        } catch {
          // The operation has committed; reporting failure now would make a
          // caller retry what is already durable. The lowered hint is still
          // no later than the truth, so at worst a worker wakes early.
        }
      }
      return result;
    } finally {
      if (relaxed) this.stmt('PRAGMA synchronous = FULL').run();
    }
  }

  /**
   * Runs `fn` in a write transaction and rolls it back, returning what `fn`
   * returned: what a process killed before its COMMIT leaves
   * (cut-before-commit.ts, for the testing kit's crash points). The ready
   * index is not touched: nothing of the transaction stays.
   */
  writeThenRollBack<T>(fn: (now: number) => T): T {
    const rollBack = new Error('rolled back on purpose');
    let value: T;
    try {
      this.guard(() =>
        this.runInTransaction.immediate(() => {
          value = fn(this.now());
          throw rollBack;
        }),
      );
    } catch (error) {
      if (error !== rollBack) throw error;
    }
    return value!;
  }

  /** The inbox has a debounce (settings wake.debounceMs); read in the caller's transaction. */
  private debounced(): boolean {
    const debounceMs = this.stmt('SELECT debounce_ms FROM settings WHERE one = 1').pluck().get() as number | null | undefined;
    return debounceMs !== null && debounceMs !== undefined;
  }

  /** A consistent snapshot for reads (a deferred transaction). */
  read<T>(fn: () => T): T {
    return this.guard(() =>
      this.db
        .transaction(() => {
          if (this.stmt(READ_DELETED).pluck().get() === 1) throw new InboxFileDeleted(this.inboxId);
          return fn();
        })
        .deferred(),
    );
  }

  /**
   * deleteInbox's transaction: unless `refuse(now)` throws (a live lease),
   * marks the file deleted, for every connection to it in any process. The
   * ready index is left as it is; the caller forgets the inbox's row once
   * the file is gone. False when it was marked already.
   */
  markDeleted(refuse: (now: number) => void): boolean {
    return this.guard(() =>
      this.runInTransaction.immediate(() => {
        if (this.stmt(READ_DELETED).pluck().get() === 1) return false;
        refuse(this.now());
        this.stmt('UPDATE meta SET deleted = 1 WHERE one = 1').run();
        return true;
      }) as boolean,
    );
  }

  /**
   * Gives the space of deleted rows back to the file system: the inbox files
   * use incremental vacuum (migrate.ts), so pages freed by prune are moved
   * off the end of the file and it is truncated. Its own transaction.
   */
  releaseFreePages(): void {
    this.guard(() => this.db.exec('PRAGMA incremental_vacuum'));
  }

  /**
   * Sets this inbox's entry in the ready index from a read snapshot, writing
   * nothing to the inbox file (so closing it has nothing to checkpoint).
   * False when the index holds a row from a later write_seq than the
   * snapshot: a writer between its lowering and its settle, or (after a
   * power loss) a lowering the index kept whose inbox commit was lost; the
   * caller then takes the write path (reindex).
   */
  settleFromSnapshot(): boolean {
    const { wake, seq } = this.read(() => ({ wake: computeWake(this, this.now()), seq: this.stmt(READ_SEQ).pluck().get() as number }));
    const settled = this.index.settle(this.inboxId, wake, seq);
    this.lastSettled = settled ? { ...wake, seq, exact: true } : undefined;
    return settled;
  }

  /**
   * Re-derives this inbox's entry in the ready index from its rows. Without
   * an fsync: it changes no data of the inbox, only its write_seq (which
   * orders index writes), and a power loss re-derives the index anyway.
   */
  reindex(): void {
    this.write(() => undefined, { force: true, durability: 'process' });
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw translateSqliteError(error, this.file);
    }
  }
}
