/** Reads for people and tools: events, stats. R6's dead letters are listed here. */
import type { InboxStats } from '../contract.js';
import { emptyStats, EVENT_COLUMNS } from '../rows.js';
import { DB_NOW_MS } from './connection.js';
import type { InboxTx } from './inbox-tx.js';

export const GET_EVENT = `SELECT ${EVENT_COLUMNS} FROM events WHERE inbox_id = $1 AND source = $2 AND source_id = $3`;

/** Oldest first; with a status, walks that status's part of the index only. */
export const LIST_EVENTS = `SELECT ${EVENT_COLUMNS} FROM events WHERE inbox_id = $1 ORDER BY id LIMIT $2`;
export const LIST_EVENTS_BY_STATUS = `
SELECT ${EVENT_COLUMNS} FROM events WHERE inbox_id = $1 AND status = $3 ORDER BY id LIMIT $2`;

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
  (SELECT count(*) FROM timers WHERE inbox_id = $1 AND NOT done) AS timers,
  (SELECT count(*) FROM approvals
    WHERE inbox_id = $1 AND answer IS NULL AND expires_at > (SELECT COALESCE($2::bigint, ${DB_NOW_MS}))) AS approvals
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
  timers: number;
  approvals: number;
}

export function toStats(row: StatsRow | undefined): InboxStats {
  if (row === undefined) return emptyStats();
  return {
    events: { pending: row.pending, running: row.running, done: row.done, dead: row.dead },
    outbox: { held: row.held, sent: row.sent },
    timers: row.timers,
    approvalsPending: row.approvals,
    lease: row.holder === null || row.lease_until === null ? null : { holder: row.holder, gen: row.gen, until: row.lease_until },
  };
}

