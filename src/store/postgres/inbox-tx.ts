/**
 * One inbox write transaction (R10) on PostgreSQL: BEGIN, lock the inbox's
 * row, read "now" once, run the rule, bring the work table up to date, COMMIT.
 * The hot operations skip this and run as one call of a server-side function
 * that does the same steps (call.ts); this is for the rest (timers,
 * approvals, dispatch, redrive), whose rules decide in TypeScript.
 *
 * PostgreSQL has no BEGIN IMMEDIATE, so the row lock taken first is what
 * serialises one inbox's writers: a claim, a finish, an acquire and a
 * scheduler pass on the same inbox run one after another, each seeing the
 * others' commits, while other inboxes never wait.
 *
 * "Now" is read once per transaction. The database's clock (the default,
 * R13) is read after the lock is granted, so a writer that waited never acts
 * on a time from before the commit it waited for. An injected clock is read
 * when the call is made, as on SQLite, where a call runs synchronously: a
 * test that moves its fake clock right after starting a call must not move
 * that call's "now". (Waiting makes it older, never newer, and an older now
 * only ever sees a lease as more alive, never as expired early.)
 */
import type pg from 'pg';
import { readClock, type Clock } from '../../clock.js';
import type { ResolvedOptions } from '../options.js';
import type { PacingState } from '../outbox-batch.js';
import { workParams } from './call.js';
import { DB_NOW_MS } from './connection.js';
import { isTransient, translate } from './errors.js';

/** The inbox row as the transaction found it, locked. */
export interface InboxRow {
  holder: string | null;
  gen: number;
  until: number | null;
  /** R9's pacing (outbox-batch.ts, PacingState), and until when quiet hours or a daily limit hold paced messages. */
  pacing: PacingState;
  notBefore: number | null;
}

interface LockedRow {
  inbox_id: string | null;
  holder: string | null;
  gen: number;
  lease_until: number | null;
  last_paced_at: number | null;
  not_before: number | null;
  pacing_day: string | null;
  day_sends: number;
  db_now: number;
}

// vigil_lock_inbox (functions/inbox-lock.sql) locks the row with an UPDATE,
// so db_now, evaluated for its result row, is read after the lock is granted.
const LOCK = `
SELECT inbox_id, holder, gen, lease_until, last_paced_at, not_before, pacing_day, day_sends, ${DB_NOW_MS} AS db_now
FROM vigil_lock_inbox($1, $2)`;

// FOR KEY SHARE conflicts with deleting the row (and FOR UPDATE), not with
// an UPDATE that leaves its key alone, which is every writer's lock above.
const SHARE = `
SELECT inbox_id, holder, gen, lease_until, last_paced_at, not_before, pacing_day, day_sends, ${DB_NOW_MS} AS db_now
FROM inboxes WHERE inbox_id = $1 FOR KEY SHARE`;

/** What a rule sees inside its transaction. */
export class InboxTx {
  constructor(
    private readonly client: pg.ClientBase,
    readonly inboxId: string,
    readonly now: number,
    readonly inbox: InboxRow,
    readonly options: ResolvedOptions,
  ) {}

  async rows<T extends object>(sql: string, params: unknown[]): Promise<T[]> {
    return (await this.client.query<T>(sql, params)).rows;
  }

  /** Runs a write; returns how many rows it changed (0 is a refusal for a fenced write). */
  async run(sql: string, params: unknown[]): Promise<number> {
    return (await this.client.query(sql, params)).rowCount ?? 0;
  }
}

export interface TxContext {
  readonly pool: pg.Pool;
  readonly options: ResolvedOptions;
}

// The work table's row (work.ts) from the inbox's rows: vigil_refresh_work (functions/work.sql),
// shared with the one-statement operations that refresh it in the same call.
const REFRESH_WORK = 'SELECT vigil_refresh_work($1, $2, $3, $4, $5, $6)';

/** Sets the inbox's work row from its rows, inside the transaction that changed them. */
async function refreshWork(tx: InboxTx): Promise<void> {
  await tx.rows(REFRESH_WORK, [tx.inboxId, tx.now, ...workParams(tx.options)]);
}

/**
 * Runs `fn` in one transaction on `inboxId`. With `create` the inbox row is
 * made if missing; without it, an inbox that was never written returns
 * `absent` and nothing is created.
 */
export async function inboxTransaction<T>(
  ctx: TxContext,
  inboxId: string,
  create: boolean,
  fn: (tx: InboxTx) => Promise<T>,
): Promise<{ value: T } | 'absent'> {
  return onInbox(
    ctx,
    (client, appNow) => beginOnInbox(client, inboxId, create, appNow, ctx.options),
    async (tx) => {
      const value = await fn(tx);
      await refreshWork(tx);
      return value;
    },
  );
}

/**
 * BEGIN with `begin`'s lock, `fn`, COMMIT on
 * a pooled connection: the one shape of every inbox transaction here. An
 * inbox that `begin` finds absent rolls back and returns `absent`.
 */
async function onInbox<T>(
  ctx: TxContext,
  begin: (client: pg.ClientBase, appNow: number | null) => Promise<InboxTx | null>,
  fn: (tx: InboxTx) => Promise<T>,
): Promise<{ value: T } | 'absent'> {
  const appNow = appClock(ctx.options);
  return withClient(ctx.pool, async (client) => {
    try {
      const tx = await begin(client, appNow);
      if (tx === null) {
        await client.query('ROLLBACK');
        return 'absent';
      }
      const value = await fn(tx);
      await client.query('COMMIT');
      return { value };
    } catch (error) {
      // On a lost connection this fails too, and withClient drops the connection.
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/**
 * A transaction beside the inbox's writers rather than among them, for
 * retention (prune.ts), so that no ingest waits behind a batch of deletes.
 * The inbox row is held FOR KEY SHARE: that keeps deleteInbox out (it takes
 * FOR UPDATE first), but not an ingest, a claim or a finish. So `fn` may
 * only remove rows that no writer changes any more (finished events, sent
 * messages, answered approvals, operator actions), with each DELETE's own
 * WHERE saying so, and the work table is left alone: none of those rows
 * counts in it. Its "now" may be read before a wait for a delete, which
 * only makes it older: it prunes less, never more.
 */
export async function besideWriters<T>(ctx: TxContext, inboxId: string, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'> {
  return onInbox(
    ctx,
    async (client, appNow) => {
      const [, shared] = await Promise.all([client.query('BEGIN'), client.query<LockedRow>(SHARE, [inboxId])]);
      return txOnRow(client, inboxId, shared.rows[0], appNow, ctx.options);
    },
    fn,
  );
}

/** The injected clock's now, read when the call is made (see above); null for the database's clock. */
function appClock(options: ResolvedOptions): number | null {
  const clock = options.clock;
  return clock === 'database' ? null : readClock(clock as Clock);
}

/**
 * BEGIN and the inbox's row lock (created with `create`), pipelined: one
 * round trip. Null, with the transaction still open, when the inbox has no
 * row and `create` is false.
 */
async function beginOnInbox(
  client: pg.ClientBase,
  inboxId: string,
  create: boolean,
  appNow: number | null,
  options: ResolvedOptions,
): Promise<InboxTx | null> {
  const [, lockResult] = await Promise.all([client.query('BEGIN'), client.query<LockedRow>(LOCK, [inboxId, create])]);
  return txOnRow(client, inboxId, lockResult.rows[0], appNow, options);
}

function txOnRow(client: pg.ClientBase, inboxId: string, locked: LockedRow | undefined, appNow: number | null, options: ResolvedOptions): InboxTx | null {
  if (locked === undefined || locked.inbox_id === null) return null;
  const row: InboxRow = {
    holder: locked.holder,
    gen: locked.gen,
    until: locked.lease_until,
    pacing: { lastPaced: locked.last_paced_at, day: locked.pacing_day, daySends: locked.day_sends },
    notBefore: locked.not_before,
  };
  return new InboxTx(client, inboxId, appNow ?? locked.db_now, row, options);
}

/**
 * Runs `fn` on a pooled connection. pg emits 'error' on a connection the
 * server or the network drops, and a checked-out connection has no listener
 * of the pool's: without this one, that event would crash the process. A
 * connection that failed is destroyed on release, never handed out again.
 */
export async function withClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const held = await checkOut(pool);
  try {
    return await fn(held.client);
  } catch (error) {
    throw held.failed(error);
  } finally {
    held.release();
  }
}

/** A pooled connection with withClient's guard, for a caller that holds it across awaits of its own (an export's generator). */
export interface CheckedOut {
  client: pg.PoolClient;
  /** What to throw for an error of the connection's work: translated, and the connection marked lost when it was. */
  failed(error: unknown): unknown;
  /** Gives it back, destroyed if it failed. */
  release(): void;
}

export async function checkOut(pool: pg.Pool): Promise<CheckedOut> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translate(error);
  }
  let lost: Error | undefined;
  const onError = (error: Error): void => {
    lost ??= error;
  };
  client.on('error', onError);
  return {
    client,
    failed(error) {
      if (isTransient(error)) lost ??= error as Error;
      return translate(error);
    },
    release() {
      client.removeListener('error', onError);
      client.release(lost);
    },
  };
}
