/**
 * One open inbox file: pragmas, migrations, a cache of prepared statements,
 * and the write transaction every rule runs in (R10: each operation is one
 * BEGIN IMMEDIATE transaction; a crash at any point leaves the file consistent).
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { VigilError } from '../../errors.js';
import type { ResolvedOptions } from '../options.js';
import { migrate } from './migrate.js';
import { earlier, type ReadyIndex, type Wake } from './ready-index.js';
import { enableWal } from './wal.js';
import { computeWake } from './wake.js';

export class InboxDb {
  readonly db: Db;
  private readonly statements = new Map<string, Statement>();
  private readonly runInTransaction: { immediate: (fn: () => unknown) => unknown };

  constructor(
    readonly inboxId: string,
    readonly file: string,
    readonly options: ResolvedOptions,
    private readonly index: ReadyIndex,
    private readonly now: () => number,
  ) {
    this.db = new Database(file, { timeout: options.busyTimeoutMs });
    try {
      enableWal(this.db, options.busyTimeoutMs);
      this.db.pragma(`synchronous = ${options.synchronous.toUpperCase()}`);
      this.db.pragma('foreign_keys = ON');
      migrate(this.db, file);
    } catch (error) {
      this.db.close();
      throw translate(error);
    }
    this.runInTransaction = this.db.transaction((fn: () => unknown) => fn());
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
   * the truth): lower the hint before COMMIT while the inbox is still locked,
   * settle the exact value after.
   */
  write<T>(fn: (now: number) => T): T {
    let seq = 0;
    let wake: Wake = { wakeAt: null, sendAt: null };
    let needsLower = true;
    let before: ReturnType<ReadyIndex['current']>;
    const result = this.guard(
      () =>
        this.runInTransaction.immediate(() => {
          const now = this.now();
          seq = (this.stmt('UPDATE meta SET write_seq = write_seq + 1 RETURNING write_seq').pluck().get() as number);
          const value = fn(now);
          wake = computeWake(this, now);
          before = this.index.current(this.inboxId);
          // Lowering may be skipped only when the previous transaction has
          // settled (so no stale settle can land later) and nothing got earlier.
          needsLower =
            before === undefined ||
            !before.exact ||
            before.seq !== seq - 1 ||
            earlier(wake.wakeAt, before.wakeAt) ||
            earlier(wake.sendAt, before.sendAt);
          if (needsLower) this.index.lower(this.inboxId, wake, seq);
          return value;
        }) as T,
    );
    const changed = before === undefined || before.wakeAt !== wake.wakeAt || before.sendAt !== wake.sendAt;
    if (needsLower || changed) {
      try {
        this.index.settle(this.inboxId, wake, seq);
      } catch {
        // The operation has committed; reporting failure now would make a
        // caller retry what is already durable. The lowered hint is still
        // no later than the truth, so at worst a worker wakes early.
      }
    }
    return result;
  }

  /** A consistent snapshot for reads (a deferred transaction). */
  read<T>(fn: () => T): T {
    return this.guard(() => this.db.transaction(fn).deferred());
  }

  /** Re-derives this inbox's entry in the ready index from its rows. */
  reindex(): void {
    this.write(() => undefined);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      throw translate(error);
    }
  }
}

/** SQLite's busy and read-only errors become VigilErrors a caller can act on. */
function translate(error: unknown): unknown {
  if (error instanceof VigilError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new VigilError('store_busy', 'the inbox file stayed locked by another writer past busyTimeoutMs; try again', {
      cause: error,
    });
  }
  return error;
}
