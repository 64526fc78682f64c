/**
 * A PostgreSQL inbox as a whole (contract.ts: exportInbox, deleteInbox):
 * exported from one REPEATABLE READ snapshot in pages, so the inbox keeps
 * taking writes while a large export streams; deleted in one transaction
 * under its row lock, every table's rows and its work row with it.
 */
import type pg from 'pg';
import type { InboxRecord } from '../contract.js';
import { inboxBusy } from '../engine/lifecycle.js';
import {
  actionRecord,
  effectRecord,
  approvalRecord,
  EXPORT_EVENT_COLUMNS,
  eventRecord,
  failuresByMessage,
  memoryRecord,
  messageRecord,
  sessionRecord,
  settingsRecord,
  timerRecord,
  type ExportedEventRow,
  type ExportedFailureRow,
  type ExportedMessageRow,
  type ExportedUsageRow,
  USAGE_EXPORT_COLUMNS,
  usageRecord,
} from '../inbox-records.js';
import type { ApprovalRecord, ListedTimerRecord } from '../rows.js';
import type { MissedPolicy, OperatorAction } from '../contract.js';
import { EFFECT_COLUMNS } from './effects.js';
import type { StoredEffect } from '../engine/port.js';
import { checkOut, inboxTransaction, type TxContext } from './inbox-tx.js';
import { inIdOrder } from './read.js';

/** Rows per page of an export: each page one round trip within the snapshot. */
const PAGE = 1_000;

/** The inbox's ($1) events after id $2, a page in id order. */
export const EVENTS_PAGE = inIdOrder(EXPORT_EVENT_COLUMNS, ' AND id > $2', `ORDER BY id LIMIT ${PAGE}`);

interface InboxHead {
  gen: number;
  last_paced_at: number | null;
  not_before: number | null;
  pacing_day: string | null;
  day_sends: number;
}

export async function* exportInbox(pool: pg.Pool, inboxId: string): AsyncGenerator<InboxRecord> {
  // As withClient (inbox-tx.ts), across the yields of a generator: a connection that failed is dropped.
  const held = await checkOut(pool);
  const client = held.client;
  let open = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    open = true;
    yield* records(client, inboxId);
    await client.query('COMMIT');
    open = false;
  } catch (error) {
    throw held.failed(error);
  } finally {
    // A consumer that stopped early leaves the snapshot open: end it before the connection goes back.
    if (open) await client.query('ROLLBACK').catch(() => undefined);
    held.release();
  }
}

async function* records(client: pg.PoolClient, inboxId: string): AsyncGenerator<InboxRecord> {
  const rows = async <T extends object>(sql: string, params: unknown[]): Promise<T[]> => (await client.query<T>(sql, params)).rows;
  const [head] = await rows<InboxHead>('SELECT gen, last_paced_at, not_before, pacing_day, day_sends FROM inboxes WHERE inbox_id = $1', [inboxId]);
  if (head === undefined) return;
  const [settings] = await rows<{ json: string }>('SELECT json FROM inbox_settings WHERE inbox_id = $1', [inboxId]);
  if (settings !== undefined) yield settingsRecord(settings.json);
  // Generation 0: never leased (SQLite has no lease row then), so there is no fence to carry over.
  if (head.gen > 0) yield { type: 'lease', gen: head.gen };
  yield { type: 'pacing', lastPacedAt: head.last_paced_at, notBefore: head.not_before, day: head.pacing_day, daySends: head.day_sends };

  for await (const row of paged<ExportedEventRow>(client, EVENTS_PAGE, [inboxId], (r) => [r.id], [0])) {
    yield eventRecord(row);
  }
  for await (const row of paged<{ source: string; source_id: string }>(
    client,
    `SELECT source, source_id FROM tombstones WHERE inbox_id = $1 AND (source, source_id) > ($2, $3) ORDER BY source, source_id LIMIT ${PAGE}`,
    [inboxId],
    (r) => [r.source, r.source_id],
    ['', ''],
  )) {
    yield { type: 'tombstone', source: row.source, sourceId: row.source_id };
  }
  const failures = failuresByMessage(
    await rows<ExportedFailureRow>('SELECT message_id, channel, kind, error, failed_at, redriven_at FROM outbox_failures WHERE inbox_id = $1 ORDER BY id', [inboxId]),
  );
  for await (const row of paged<ExportedMessageRow>(
    client,
    `SELECT id, body, urgent, channel, created_at, sent_at FROM outbox WHERE inbox_id = $1 AND id > $2 ORDER BY id LIMIT ${PAGE}`,
    [inboxId],
    (r) => [r.id],
    [0],
  )) {
    yield messageRecord(row, failures.get(row.id) ?? []);
  }
  const approvals = 'SELECT id, action, requested_at, expires_at, answer, answered_at, remind_at, reminded_at FROM approvals WHERE inbox_id = $1 ORDER BY requested_at, id';
  for (const row of await rows<ApprovalRecord>(approvals, [inboxId])) yield approvalRecord(row);
  for (const row of await rows<ListedTimerRecord & { missed: MissedPolicy }>('SELECT * FROM timers WHERE inbox_id = $1 ORDER BY id', [inboxId])) {
    yield timerRecord(row);
  }
  // Byte order, as SQLite sorts them (memory.key has the database's collation).
  const memory = 'SELECT key, value, updated_at FROM memory WHERE inbox_id = $1 ORDER BY key COLLATE "C"';
  for (const row of await rows<{ key: string; value: string; updated_at: number }>(memory, [inboxId])) yield memoryRecord(row);
  const [session] = await rows<{ state: string; updated_at: number }>('SELECT state, updated_at FROM sessions WHERE inbox_id = $1', [inboxId]);
  if (session !== undefined) yield sessionRecord(session);
  for await (const row of paged<OperatorAction & { id: number }>(
    client,
    `SELECT id, at, actor, action, target, result FROM operator_actions WHERE inbox_id = $1 AND id > $2 ORDER BY id LIMIT ${PAGE}`,
    [inboxId],
    (r) => [r.id],
    [0],
  )) {
    yield actionRecord(row);
  }
  const effects = `SELECT ${EFFECT_COLUMNS} FROM effects WHERE inbox_id = $1 ORDER BY intended_at, key COLLATE "C"`;
  for (const row of await rows<StoredEffect>(effects, [inboxId])) yield effectRecord(row);
  for await (const row of paged<ExportedUsageRow & { id: number }>(
    client,
    `SELECT id, ${USAGE_EXPORT_COLUMNS} FROM usage WHERE inbox_id = $1 AND id > $2 ORDER BY id LIMIT ${PAGE}`,
    [inboxId],
    (r) => [r.id],
    [0],
  )) {
    yield usageRecord(row);
  }
}

/** Keyset pages of one query: `after` gives the last row's key, the parameters after `params` for the next page. */
async function* paged<T extends object>(
  client: pg.PoolClient,
  sql: string,
  params: unknown[],
  after: (row: T) => unknown[],
  first: unknown[],
): AsyncGenerator<T> {
  let key = first;
  for (;;) {
    const { rows } = await client.query<T>(sql, [...params, ...key]);
    yield* rows;
    if (rows.length < PAGE) return;
    key = after(rows[rows.length - 1]!);
  }
}

// Every table that holds an inbox's rows, then its work row and the inbox row itself: one statement.
const DELETE_INBOX = `
WITH e AS (DELETE FROM events WHERE inbox_id = $1),
     t AS (DELETE FROM tombstones WHERE inbox_id = $1),
     ti AS (DELETE FROM timers WHERE inbox_id = $1),
     a AS (DELETE FROM approvals WHERE inbox_id = $1),
     o AS (DELETE FROM outbox WHERE inbox_id = $1),
     f AS (DELETE FROM outbox_failures WHERE inbox_id = $1),
     p AS (DELETE FROM outbox_progress WHERE inbox_id = $1),
     u AS (DELETE FROM usage WHERE inbox_id = $1),
     ef AS (DELETE FROM effects WHERE inbox_id = $1),
     s AS (DELETE FROM sessions WHERE inbox_id = $1),
     m AS (DELETE FROM memory WHERE inbox_id = $1),
     oa AS (DELETE FROM operator_actions WHERE inbox_id = $1),
     st AS (DELETE FROM inbox_settings WHERE inbox_id = $1),
     r AS (DELETE FROM inbox_rate WHERE inbox_id = $1),
     w AS (DELETE FROM work WHERE inbox_id = $1)
DELETE FROM inboxes WHERE inbox_id = $1`;

const HOLD_OFF_PRUNES = 'SELECT 1 FROM inboxes WHERE inbox_id = $1 FOR UPDATE';

/**
 * Under the writers' lock, refused while a lease is live. The work refresh
 * that ends every inbox transaction then finds no inbox row, and writes no
 * work row back.
 */
export async function deleteInbox(ctx: TxContext, inboxId: string): Promise<boolean> {
  const deleted = await inboxTransaction(ctx, inboxId, false, async (tx) => {
    if (tx.inbox.until !== null && tx.inbox.until >= tx.now) throw inboxBusy(inboxId);
    // A prune holds the row FOR KEY SHARE, beside the writers' lock above
    // (prune.ts): wait for it here, so that the delete's snapshot, taken
    // after, sees the tombstones it wrote.
    await tx.run(HOLD_OFF_PRUNES, [inboxId]);
    await tx.run(DELETE_INBOX, [inboxId]);
  });
  return deleted !== 'absent';
}
