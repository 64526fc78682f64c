/**
 * The work table: per inbox, when it next needs a worker (`wake_at`) and a
 * dispatcher (`send_at`). It is what readyInboxes() and dispatchableInboxes()
 * read, so a pool's poll costs what is due, not one query per inbox.
 *
 * Unlike SQLite's ready index (a separate file, see docs/design/ready-index.md)
 * it lives in the same database, so every write transaction sets the exact
 * value before COMMIT, under the inbox's row lock: a crash can never leave
 * it stale, and writers of one inbox update it in the order they commit.
 */
import { retryReadyAt } from './claim.js';
import { DB_NOW_MS } from './connection.js';
import type { InboxTx } from './inbox-tx.js';

// Each part reads a partial index or one inbox's pending rows: the cost
// follows the work in the inbox, not its history. Same rules as sqlite/wake.ts.
const REFRESH_WORK = `
WITH parts AS (
  SELECT
    (SELECT received_at FROM events
      WHERE inbox_id = $1 AND status = 'pending' AND attempts = 0 ORDER BY id LIMIT 1) AS fresh,
    (SELECT min(CASE WHEN attempts >= $3 THEN 0 ELSE ${retryReadyAt('$4', '$5')} END)
       FROM events WHERE inbox_id = $1 AND status = 'pending' AND attempts > 0) AS retry,
    (SELECT i.lease_until + 1
      WHERE EXISTS (SELECT 1 FROM events WHERE inbox_id = $1 AND status = 'running')) AS stalled,
    i.lease_until,
    i.last_paced_at,
    (SELECT min(due) FROM timers WHERE inbox_id = $1 AND NOT done) AS timer,
    (SELECT min(expires_at) FROM approvals WHERE inbox_id = $1 AND answer IS NULL) AS approval,
    (SELECT min(created_at) FROM outbox
      WHERE inbox_id = $1 AND sent_at IS NULL AND reserved_by IS NULL AND urgent) AS urgent,
    (SELECT min(created_at) FROM outbox
      WHERE inbox_id = $1 AND sent_at IS NULL AND reserved_by IS NULL AND NOT urgent) AS paced,
    (SELECT min(reserved_until) + 1 FROM outbox
      WHERE inbox_id = $1 AND sent_at IS NULL AND reserved_by IS NOT NULL) AS inflight
  FROM inboxes i WHERE i.inbox_id = $1
), due AS (
  SELECT parts.*, LEAST(fresh, retry, stalled) AS claimable FROM parts
)
INSERT INTO work (inbox_id, wake_at, send_at)
SELECT $1,
  -- While a lease is live only its holder may claim, and it claims again
  -- before it releases: events are not listed until until + 1. Timers and
  -- approvals are, the scheduler needs no lease. (LEAST skips NULLs = never.)
  LEAST(CASE WHEN claimable IS NOT NULL AND lease_until >= $2 THEN GREATEST(claimable, lease_until + 1)
             ELSE claimable END,
        timer, approval),
  -- A dispatch in flight blocks the next one until it is recorded or expires.
  COALESCE(inflight,
           LEAST(urgent, CASE WHEN paced IS NULL THEN NULL ELSE GREATEST(paced, last_paced_at + $6) END))
FROM due
ON CONFLICT (inbox_id) DO UPDATE SET wake_at = excluded.wake_at, send_at = excluded.send_at`;

/** Sets the inbox's work row from its rows, inside the transaction that changed them. */
export async function refreshWork(tx: InboxTx): Promise<void> {
  const { maxAttempts, retryBackoff, outboxGapMs } = tx.options;
  await tx.run(REFRESH_WORK, [tx.inboxId, tx.now, maxAttempts, retryBackoff.baseMs, retryBackoff.maxMs, outboxGapMs]);
}

/**
 * Most overdue first. $1 is now from the app clock, NULL for the database's
 * (read once, as an InitPlan, so the index range stays usable).
 * SKIP LOCKED: pollers on several machines asking at the same moment get
 * different inboxes instead of all piling onto the first; the lease, not
 * this pick, is what keeps one run per inbox.
 */
export const READY_INBOXES = `
SELECT inbox_id FROM work WHERE wake_at <= (SELECT COALESCE($1::bigint, ${DB_NOW_MS}))
ORDER BY wake_at, inbox_id LIMIT $2
FOR NO KEY UPDATE SKIP LOCKED`;

export const DISPATCHABLE_INBOXES = `
SELECT inbox_id FROM work WHERE send_at <= (SELECT COALESCE($1::bigint, ${DB_NOW_MS}))
ORDER BY send_at, inbox_id LIMIT $2
FOR NO KEY UPDATE SKIP LOCKED`;
