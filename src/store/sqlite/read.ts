/** Reads for people and tools: events, stats. R6's dead letters are listed here. */
import type { EventRow, StoredStats } from '../contract.js';
import type { CheckedEventQuery } from '../engine/validate/index.js';
import { EVENT_COLUMNS, toEventRow, type EventRecord } from '../rows.js';
import type { InboxDb } from './inbox-db.js';
import { readLease } from './lease.js';
import { rateWindow } from '../engine/quota.js';
import { boundLimit } from './bound-limit.js';

export function getEvent(c: InboxDb, source: string, sourceId: string): EventRow | null {
  const row = c.stmt(`SELECT ${EVENT_COLUMNS} FROM events WHERE source = ? AND source_id = ?`).get(source, sourceId);
  return row === undefined ? null : toEventRow(row as EventRecord);
}

/** Below this many matches a filter's own index is read and sorted; above it the table is walked in id order. */
const SORT_AT_MOST = 2_000;

/**
 * Oldest first (or newest first), from `afterId` on; with a status or a
 * source, only those. A filter's index is in (status, attempts, id) or
 * (source, source_id) order, not id order: reading all of a common status's
 * rows to sort them would cost the inbox's history (100,000 done events,
 * ~100 ms). So each filter's matches are counted first, up to SORT_AT_MOST,
 * through its index: a rare match is read through its index and sorted, a
 * common one is found by walking the table in id order, where the page
 * fills after about limit * (events / matches) rows. (`+column` keeps
 * SQLite off that column's index.) One statement per shape, prepared once
 * per file.
 */
export function listEvents(c: InboxDb, query: CheckedEventQuery): EventRow[] {
  const { status, source, afterId, newestFirst, limit } = query;
  const params: Record<string, unknown> = { limit };
  if (status !== null) params.status = status;
  if (source !== null) params.source = source;
  if (afterId !== null) params.afterId = afterId;
  const byStatus = status === null ? Infinity : matches(c, 'status = @status', params);
  const bySource = source === null ? Infinity : matches(c, 'source = @source', params);
  const indexed = Math.min(byStatus, bySource) > SORT_AT_MOST ? null : byStatus <= bySource ? 'status' : 'source';
  const where: string[] = [];
  if (status !== null) where.push(`${indexed === 'status' ? '' : '+'}status = @status`);
  if (source !== null) where.push(`${indexed === 'source' ? '' : '+'}source = @source`);
  if (afterId !== null) where.push(newestFirst ? 'id < @afterId' : 'id > @afterId');
  const sql =
    `SELECT ${EVENT_COLUMNS} FROM events` +
    (where.length === 0 ? '' : ` WHERE ${where.join(' AND ')}`) +
    ` ORDER BY id${newestFirst ? ' DESC' : ''} ${boundLimit('@limit')}`;
  return (c.stmt(sql).all(params) as EventRecord[]).map(toEventRow);
}

/** How many events match one filter, counted through its index up to SORT_AT_MOST + 1. */
function matches(c: InboxDb, condition: string, params: Record<string, unknown>): number {
  const named = condition.includes('@status') ? { status: params.status } : { source: params.source };
  return c.stmt(`SELECT count(*) FROM (SELECT 1 FROM events WHERE ${condition} LIMIT ${SORT_AT_MOST + 1})`).pluck().get(named) as number;
}

/** R6: a dead event becomes pending again with attempts 0; its last error stays for the record. */
export function redrive(c: InboxDb, eventId: number): boolean {
  return (
    c
      .stmt(
        `UPDATE events SET status = 'pending', attempts = 0, error = NULL, claim_gen = NULL, last_claim_at = NULL
         WHERE id = ? AND status = 'dead'`,
      )
      .run(eventId).changes === 1
  );
}

/** Each event status's count, as four columns named for the statuses: what stats() and the dashboard's summary (dashboard.ts) both read. */
export const EVENT_COUNTS = `
  (SELECT count(*) FROM events WHERE status = 'pending') AS pending,
  (SELECT count(*) FROM events WHERE status = 'running') AS running,
  (SELECT count(*) FROM events WHERE status = 'done') AS done,
  (SELECT count(*) FROM events WHERE status = 'dead') AS dead`;

const STATS_SQL = `
SELECT ${EVENT_COUNTS},
  (SELECT count(*) FROM outbox WHERE sent_at IS NULL) AS held,
  (SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL) AS sent,
  (SELECT count(*) FROM outbox_failures WHERE redriven_at IS NULL AND kind = 'undeliverable') AS undeliverable,
  (SELECT count(*) FROM outbox_failures WHERE redriven_at IS NULL AND kind <> 'undeliverable') AS rejected,
  (SELECT count(*) FROM timers WHERE done = 0) AS timers,
  (SELECT count(*) FROM approvals WHERE answer IS NULL AND expires_at > @now) AS approvals,
  meta.pending_events, meta.pending_bytes,
  CASE WHEN meta.rate_window = @window THEN meta.rate_count ELSE 0 END AS this_minute
FROM meta WHERE meta.one = 1`;

export function stats(c: InboxDb, now: number): StoredStats {
  const row = c.stmt(STATS_SQL).get({ now, window: rateWindow(now) }) as Record<string, number>;
  return {
    events: { pending: row.pending!, running: row.running!, done: row.done!, dead: row.dead! },
    outbox: { held: row.held!, sent: row.sent!, undeliverable: row.undeliverable!, rejected: row.rejected! },
    timers: row.timers!,
    approvalsPending: row.approvals!,
    lease: readLease(c),
    usage: { pendingEvents: row.pending_events!, pendingBytes: row.pending_bytes!, eventsThisMinute: row.this_minute! },
  };
}

export function getSession(c: InboxDb): unknown {
  const state = c.stmt('SELECT state FROM session WHERE one = 1').pluck().get() as string | undefined;
  return state === undefined ? null : (JSON.parse(state) as unknown);
}

export function getMemory(c: InboxDb): Record<string, unknown> {
  const rows = c.stmt('SELECT key, value FROM memory ORDER BY key').all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
}
