/** Reads for people and tools: events, stats. R6's dead letters are listed here. */
import type { EventRow, EventStatus, InboxStats } from '../contract.js';
import { EVENT_COLUMNS, toEventRow, type EventRecord } from '../rows.js';
import type { InboxDb } from './inbox-db.js';
import { readLease } from './lease.js';

export function getEvent(c: InboxDb, source: string, sourceId: string): EventRow | null {
  const row = c.stmt(`SELECT ${EVENT_COLUMNS} FROM events WHERE source = ? AND source_id = ?`).get(source, sourceId);
  return row === undefined ? null : toEventRow(row as EventRecord);
}

/** Oldest first; with a status, walks that status's index only. */
export function listEvents(c: InboxDb, status: EventStatus | null, limit: number): EventRow[] {
  const rows =
    status === null
      ? c.stmt(`SELECT ${EVENT_COLUMNS} FROM events ORDER BY id LIMIT ?`).all(limit)
      : c.stmt(`SELECT ${EVENT_COLUMNS} FROM events WHERE status = ? ORDER BY id LIMIT ?`).all(status, limit);
  return (rows as EventRecord[]).map(toEventRow);
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

const STATS_SQL = `
SELECT
  (SELECT count(*) FROM events WHERE status = 'pending') AS pending,
  (SELECT count(*) FROM events WHERE status = 'running') AS running,
  (SELECT count(*) FROM events WHERE status = 'done') AS done,
  (SELECT count(*) FROM events WHERE status = 'dead') AS dead,
  (SELECT count(*) FROM outbox WHERE sent_at IS NULL) AS held,
  (SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL) AS sent,
  (SELECT count(*) FROM timers WHERE done = 0) AS timers,
  (SELECT count(*) FROM approvals WHERE answer IS NULL AND expires_at > @now) AS approvals`;

export function stats(c: InboxDb, now: number): InboxStats {
  const row = c.stmt(STATS_SQL).get({ now }) as Record<string, number>;
  return {
    events: { pending: row.pending!, running: row.running!, done: row.done!, dead: row.dead! },
    outbox: { held: row.held!, sent: row.sent! },
    timers: row.timers!,
    approvalsPending: row.approvals!,
    lease: readLease(c),
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
