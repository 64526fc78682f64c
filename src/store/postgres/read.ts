/** Reads for people and tools: events, stats. R6's dead letters are listed here. */
import type { EventStatus, StoredStats } from '../contract.js';
import type { CheckedEventQuery } from '../engine/validate/index.js';
import { emptyStats, EVENT_COLUMNS } from '../rows.js';
import { DB_NOW_MS } from './connection.js';
import type { InboxTx } from './inbox-tx.js';

export const GET_EVENT = `SELECT ${EVENT_COLUMNS} FROM events WHERE inbox_id = $1 AND source = $2 AND source_id = $3`;

/** Below this many events of a source, its key index is read and sorted; above it, the status index is walked in id order. */
export const SORT_AT_MOST = 2_000;

/** How many events of the inbox ($1) have the source $2, up to SORT_AT_MOST + 1 (the key index alone). */
export const COUNT_SOURCE = `
SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE inbox_id = $1 AND source = $2 LIMIT ${SORT_AT_MOST + 1}) AS match`;

const STATUSES: readonly EventStatus[] = ['pending', 'running', 'done', 'dead'];

/**
 * One inbox's ($1) events in id order, as one statement: each status's
 * range of events_by_status (inbox_id, status, id) read in id order, the
 * four merged. No index is in (inbox_id, id) order, and none is on id alone
 * (migration 013). `where` adds conditions to each range; `order` is the
 * ORDER BY and LIMIT of each range and of the whole.
 */
export function inIdOrder(columns: string, where: string, order: string): string {
  const range = (status: EventStatus): string => `(SELECT ${columns} FROM events WHERE inbox_id = $1 AND status = '${status}'${where} ${order})`;
  return `SELECT * FROM (${STATUSES.map(range).join(' UNION ALL ')}) AS e ${order}`;
}

/**
 * An event listing as one statement: $1 inbox, $2 limit, then the source
 * and afterId when given. It walks events_by_status in id order, one status
 * (the query's) or all four merged (inIdOrder), reading what the page
 * needs. A source with few events (`sortSource`) is read through its key
 * index and sorted instead, since walking for it could pass the inbox's
 * whole history.
 */
export function listEventsSql(query: CheckedEventQuery, sortSource: boolean): { sql: string; params: unknown[] } {
  const { status, source, afterId, newestFirst } = query;
  const params: unknown[] = [];
  const where: string[] = [];
  if (source !== null) {
    params.push(source);
    where.push(`source = $${params.length + 2}`);
  }
  if (afterId !== null) {
    params.push(afterId);
    where.push(`id ${newestFirst ? '<' : '>'} $${params.length + 2}`);
  }
  const order = `ORDER BY id${newestFirst ? ' DESC' : ''} LIMIT $2`;
  const filter = where.map((w) => ` AND ${w}`).join('');
  let sql: string;
  if (sortSource || status !== null) {
    // ORDER BY id + 0: sorted, never an ordered walk of a status's range past the source's few events.
    const sorted = sortSource ? order.replace('ORDER BY id', 'ORDER BY id + 0') : order;
    sql = `SELECT ${EVENT_COLUMNS} FROM events WHERE inbox_id = $1${status === null ? '' : ` AND status = '${status}'`}${filter} ${sorted}`;
  } else {
    sql = inIdOrder(EVENT_COLUMNS, filter, order);
  }
  return { sql, params };
}

/** R6: a dead event becomes pending again with attempts 0; its last error stays for the record. */
export async function redrive(tx: InboxTx, eventId: number): Promise<boolean> {
  const changed = await tx.run(
    `UPDATE events SET status = 'pending', attempts = 0, error = NULL, claim_gen = NULL, last_claim_at = NULL
     WHERE inbox_id = $1 AND id = $2 AND status = 'dead'`,
    [tx.inboxId, eventId],
  );
  return changed === 1;
}

/**
 * One statement, so every count comes from the same snapshot. No row: the
 * inbox was never written. $2 is now (NULL: the database's clock).
 */
export const STATS = `
SELECT
  i.holder, i.gen, i.lease_until,
  (SELECT count(*) FROM events WHERE inbox_id = $1 AND status = 'pending') AS pending,
  (SELECT count(*) FROM events WHERE inbox_id = $1 AND status = 'running') AS running,
  (SELECT count(*) FROM events WHERE inbox_id = $1 AND status = 'done') AS done,
  (SELECT count(*) FROM events WHERE inbox_id = $1 AND status = 'dead') AS dead,
  (SELECT count(*) FROM outbox WHERE inbox_id = $1 AND sent_at IS NULL) AS held,
  (SELECT count(*) FROM outbox WHERE inbox_id = $1 AND sent_at IS NOT NULL) AS sent,
  (SELECT count(*) FROM outbox_failures WHERE inbox_id = $1 AND redriven_at IS NULL AND kind = 'undeliverable') AS undeliverable,
  (SELECT count(*) FROM outbox_failures WHERE inbox_id = $1 AND redriven_at IS NULL AND kind <> 'undeliverable') AS rejected,
  (SELECT count(*) FROM timers WHERE inbox_id = $1 AND NOT done) AS timers,
  (SELECT count(*) FROM approvals
    WHERE inbox_id = $1 AND answer IS NULL AND expires_at > (SELECT COALESCE($2::bigint, ${DB_NOW_MS}))) AS approvals,
  (SELECT COALESCE(sum(octet_length(payload)), 0) FROM events WHERE inbox_id = $1 AND status IN ('pending', 'running')) AS pending_bytes,
  COALESCE((SELECT r.rate_count FROM inbox_rate r
    WHERE r.inbox_id = $1 AND r.rate_window = floor((SELECT COALESCE($2::bigint, ${DB_NOW_MS})) / 60000.0)), 0) AS this_minute
FROM inboxes i WHERE i.inbox_id = $1`;

export interface StatsRow {
  holder: string | null;
  gen: number;
  lease_until: number | null;
  pending: number;
  running: number;
  done: number;
  dead: number;
  held: number;
  sent: number;
  undeliverable: number;
  rejected: number;
  timers: number;
  approvals: number;
  pending_bytes: number;
  this_minute: number;
}

export function toStats(row: StatsRow | undefined): StoredStats {
  if (row === undefined) return emptyStats();
  return {
    events: { pending: row.pending, running: row.running, done: row.done, dead: row.dead },
    outbox: { held: row.held, sent: row.sent, undeliverable: row.undeliverable, rejected: row.rejected },
    timers: row.timers,
    approvalsPending: row.approvals,
    lease: row.holder === null || row.lease_until === null ? null : { holder: row.holder, gen: row.gen, until: row.lease_until },
    usage: { pendingEvents: row.pending + row.running, pendingBytes: Number(row.pending_bytes), eventsThisMinute: Number(row.this_minute) },
  };
}

