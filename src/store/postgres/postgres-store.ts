/**
 * The PostgreSQL backend (engine/port.ts, StorePort): one database (one
 * schema) for all inboxes, shared by any number of processes and machines,
 * through a pg connection pool.
 * Each inbox's writes are serialised by a lock on its row in `inboxes`;
 * leases use the database's clock unless a clock is injected (R13).
 */
import type pg from 'pg';
import { readClock, type Clock } from '../../clock.js';
import { VigilError } from '../../errors.js';
import type { InboxList, InboxRecord, NextWake, StoreOptions, WakeKind, WakeListener } from '../contract.js';
import type { StorePort } from '../engine/port.js';
import type { CheckedInboxListQuery, CheckedRecord } from '../engine/validate/index.js';
import { toSummary, type SummaryRecord } from '../rows.js';
import { resolveOptions, type ResolvedOptions } from '../options.js';
import { LIST_INBOXES } from './dashboard.js';
import { commitThenWake, createPool, DB_NOW_MS, inOneWrite, OVERVIEW_TYPES, parseConnection, wakeQuery, type Connection } from './connection.js';
import { translate } from './errors.js';
import type { Statement } from './call.js';
import { besideWriters, inboxTransaction, withClient, type InboxTx } from './inbox-tx.js';
import { importRecords } from './import.js';
import { deleteInbox, exportInbox } from './lifecycle.js';
import { migrate } from './migrate.js';
import { PostgresInboxPort, type InboxBackend } from './inbox-port.js';
import { StepGroups } from './step-group.js';
import { PostgresViewPort } from './view-port.js';
import { NotificationListener } from './wake-listener.js';
import { DISPATCHABLE_INBOXES, READY_INBOXES } from './work.js';

/** Opens (and migrates) the store; `clock` defaults to `'database'` here. */
export async function openPostgresStore(url: string, options: StoreOptions = {}): Promise<PostgresStore> {
  const resolved = resolveOptions(options, 'database');
  const connection = parseConnection(url, (options as StoreOptions | undefined)?.schema);
  const pool = createPool(connection);
  try {
    await migrate(pool, connection.schema);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw translate(error);
  }
  return new PostgresStore(pool, connection, resolved);
}

export class PostgresStore implements StorePort, InboxBackend {
  readonly backend = 'postgres';
  private closed = false;
  private readonly listener: NotificationListener;
  private readonly steps: StepGroups;

  constructor(
    private readonly pool: pg.Pool,
    private readonly connection: Connection,
    readonly options: ResolvedOptions,
  ) {
    this.listener = new NotificationListener(connection.config, connection.channel);
    this.steps = new StepGroups(pool, connection.channel);
  }

  get schema(): string {
    return this.connection.schema;
  }

  get channel(): string {
    return this.connection.channel;
  }

  appNow(): number | null {
    const clock = this.options.clock;
    return clock === 'database' ? null : readClock(clock as Clock);
  }

  inbox(id: string): PostgresInboxPort {
    return new PostgresInboxPort(this, id);
  }

  view(id: string): PostgresViewPort {
    return new PostgresViewPort(this, id);
  }

  async transaction<T>(inboxId: string, create: boolean, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'> {
    this.assertOpen();
    return inboxTransaction({ pool: this.pool, options: this.options }, inboxId, create, fn);
  }

  async besideWriters<T>(inboxId: string, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'> {
    this.assertOpen();
    return besideWriters({ pool: this.pool, options: this.options }, inboxId, fn);
  }

  /** One statement on a pooled connection: its own transaction, one snapshot. */
  async query<T extends object>(sql: string, params: unknown[], types?: pg.CustomTypesConfig): Promise<T[]> {
    this.assertOpen();
    try {
      return (await this.pool.query<T>(types === undefined ? { text: sql, values: params } : { text: sql, values: params, types })).rows;
    } catch (error) {
      throw translate(error);
    }
  }

  /**
   * One statement planned with index scans only, in a transaction of its own
   * (the settings are LOCAL to it), pipelined: one round trip. For a read
   * whose index walk the planner would trade for a heap scan on an inbox
   * that is a large part of the table (dashboard.ts, ACTIVITY).
   */
  async queryByIndex<T extends object>(sql: string, params: unknown[]): Promise<T[]> {
    this.assertOpen();
    return withClient(this.pool, async (client) => {
      try {
        const [, , result] = await Promise.all([
          client.query('BEGIN READ ONLY'),
          client.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off'),
          client.query<T>(sql, params),
          client.query('COMMIT'),
        ]);
        return result.rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** One statement, prepared once per pooled connection under its name: one round trip. */
  async call<T extends object>(statement: Statement, params: unknown[]): Promise<T[]> {
    this.assertOpen();
    return withClient(this.pool, async (client) => (await client.query<T>({ name: statement.name, text: statement.text, values: params })).rows);
  }

  async callThenCommit<T extends object>(statement: Statement, params: unknown[], { wake = false } = {}): Promise<T[]> {
    this.assertOpen();
    return withClient(this.pool, async (client) => {
      try {
        // Pipelined (connection.ts): BEGIN and the call go out together, one round trip.
        const [, { rows }] = await Promise.all(
          inOneWrite(client, () => [
            client.query('BEGIN'),
            client.query<T>({ name: statement.name, text: statement.text, values: params }),
          ]),
        );
        // The hint the call left goes out with the COMMIT, after it, in the same round trip.
        await commitThenWake(client, this.channel, wake);
        return rows;
      } catch (error) {
        // On a lost connection this fails too, and withClient drops the connection.
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async runStep<T extends object>(inboxId: string, statement: Statement, params: unknown[], { wake, alone }: { wake: boolean; alone: () => Promise<T[]> }): Promise<T[]> {
    this.assertOpen();
    return (await this.steps.run({ inboxId, statement, params, wake, alone })) as T[];
  }

  async callThenWake<T extends object>(statement: Statement, params: unknown[]): Promise<T[]> {
    this.assertOpen();
    return withClient(this.pool, async (client) => {
      // Pipelined (connection.ts): both go out together; wait for both before the connection goes back.
      // The hint's own outcome is not awaited into the answer: the events are stored whether or not it went out.
      const [result] = await Promise.allSettled(
        inOneWrite(client, () => [
          client.query<T>({ name: statement.name, text: statement.text, values: params }),
          client.query(wakeQuery(this.channel)),
        ]),
      );
      if (result.status === 'rejected') throw result.reason;
      return result.value.rows;
    });
  }

  async inboxes(): Promise<string[]> {
    const rows = await this.query<{ inbox_id: string }>('SELECT inbox_id FROM inboxes ORDER BY inbox_id', []);
    return rows.map((row) => row.inbox_id);
  }

  /** One statement: the page's summaries, the counts over all pages, and now (dashboard.ts). */
  async listInboxes({ search, after, limit, attention, stuckAfterMs }: CheckedInboxListQuery): Promise<InboxList> {
    this.assertOpen();
    // Lenient bigints: one inbox's row out of range is its own unreadable summary, not a failed page (toSummary).
    const rows = await this.query<InboxPageRow>(LIST_INBOXES, [this.appNow(), stuckAfterMs, search, attention, after ?? '', limit + 1], OVERVIEW_TYPES);
    const head = rows[0]!;
    const page = rows.filter((row) => row.inbox_id !== null);
    const listed = page.slice(0, limit);
    return {
      inboxes: listed.map((row) =>
        toSummary(
          row.inbox_id!,
          row,
          row.holder === null || row.lease_until === null ? null : { holder: row.holder, gen: row.gen, until: row.lease_until },
          row.ready_since,
        ),
      ),
      next: page.length > limit ? listed[listed.length - 1]!.inbox_id : null,
      total: head.total,
      needAttention: head.need_attention,
      now: head.now,
    };
  }

  async readyInboxes(limit: number): Promise<string[]> {
    return this.pick(READY_INBOXES, limit);
  }

  async dispatchableInboxes(limit: number): Promise<string[]> {
    return this.pick(DISPATCHABLE_INBOXES, limit);
  }

  async nextWake(): Promise<NextWake> {
    this.assertOpen();
    const [row] = await this.query<NextWake>(
      `SELECT (SELECT min(wake_at) FROM work) AS "wakeAt", (SELECT min(send_at) FROM work) AS "sendAt",
              COALESCE($1::bigint, ${DB_NOW_MS}) AS now`,
      [this.appNow()],
    );
    return row!;
  }

  private async pick(sql: string, limit: number): Promise<string[]> {
    this.assertOpen();
    const rows = await this.query<{ inbox_id: string }>(sql, [this.appNow(), limit]);
    return rows.map((row) => row.inbox_id);
  }

  async subscribe(listener: WakeListener): Promise<() => Promise<void>> {
    this.assertOpen();
    return this.listener.add(listener);
  }

  /** A NOTIFY of its own (no WAL, no flush): every machine listening hears it. */
  async notify(inboxId: string, kind: WakeKind): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [this.channel, `${kind}:${inboxId}`]);
  }

  /** A real write, and a useful one: a database that is down, read-only or out of space refuses it. */
  async probeWrites(): Promise<void> {
    await this.query(`DELETE FROM ended_sessions WHERE expires_at <= COALESCE($1::bigint, ${DB_NOW_MS})`, [this.appNow()]);
  }

  /** Forgets sessions past their expiry in the same statement (one round trip). */
  async endSession(sessionId: string, expiresAt: number): Promise<void> {
    this.assertOpen();
    await this.query(
      `WITH forgotten AS (DELETE FROM ended_sessions WHERE expires_at <= COALESCE($3::bigint, ${DB_NOW_MS}))
       INSERT INTO ended_sessions (session_id, expires_at) SELECT $1, $2 WHERE $2 > COALESCE($3::bigint, ${DB_NOW_MS})
       ON CONFLICT (session_id) DO UPDATE SET expires_at = greatest(ended_sessions.expires_at, excluded.expires_at)`,
      [sessionId, expiresAt, this.appNow()],
    );
  }

  async sessionEnded(sessionId: string): Promise<boolean> {
    this.assertOpen();
    const rows = await this.query('SELECT 1 FROM ended_sessions WHERE session_id = $1', [sessionId]);
    return rows.length > 0;
  }

  exportInbox(id: string): AsyncIterable<InboxRecord> {
    this.assertOpen();
    return exportInbox(this.pool, id);
  }

  async deleteInbox(id: string): Promise<boolean> {
    this.assertOpen();
    return deleteInbox({ pool: this.pool, options: this.options }, id);
  }

  async importInbox(id: string, records: AsyncIterable<CheckedRecord>): Promise<number> {
    this.assertOpen();
    return importRecords({ pool: this.pool, options: this.options }, id, records);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.listener.close();
    await this.pool.end();
  }

  private assertOpen(): void {
    if (this.closed) throw new VigilError('store_closed', 'this store was closed; open a new one with openStore()');
  }
}

/** A row of LIST_INBOXES: the counts, and an inbox of the page (all null when the page is empty). */
interface InboxPageRow extends SummaryRecord {
  now: number;
  total: number;
  need_attention: number;
  inbox_id: string | null;
  holder: string | null;
  gen: number;
  lease_until: number | null;
  ready_since: number | null;
}
