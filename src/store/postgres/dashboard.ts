/**
 * The dashboard's reads on PostgreSQL: the overview (a page of inboxes at a
 * glance) and one inbox's approvals, outbox and activity. Each statement
 * reads indexes on what it shows, so its cost follows the page or the
 * window, not the number of inboxes or an inbox's history.
 */
import { DB_NOW_MS } from './connection.js';

/** $1 is now from the app clock, NULL for the database's: read once. */
export const STORE_NOW = `SELECT COALESCE($1::bigint, ${DB_NOW_MS}) AS now`;

/**
 * The overview in one statement (one snapshot): a row per inbox of the
 * page, each with the counts over all pages, or one row of counts alone
 * when the page is empty.
 *
 * $1 now (NULL: the database's clock, read once), $2 stuckAfterMs,
 * $3 search, $4 attention only, $5 after, $6 how many.
 *
 * Inboxes that need a person: a dead event (events_dead, one entry per
 * dead event) or work due at or before now - stuckAfterMs (work_by_wake):
 * read as a set, not probed per inbox. The page is a range of the inboxes'
 * primary key, filtered; each of its inboxes is summarised from its own
 * rows through the per-inbox indexes (events_by_status, timers_due,
 * outbox_held, approvals_open).
 */
export const LIST_INBOXES = `
WITH clock AS MATERIALIZED (SELECT COALESCE($1::bigint, ${DB_NOW_MS}) AS now),
attention AS MATERIALIZED (
  SELECT inbox_id FROM events WHERE status = 'dead'
  UNION
  SELECT inbox_id FROM work WHERE wake_at <= (SELECT now FROM clock) - $2::bigint
),
matching AS (
  SELECT i.inbox_id FROM inboxes i
  WHERE ($3::text IS NULL OR strpos(lower(i.inbox_id), lower($3)) > 0)
    AND (NOT $4::boolean OR i.inbox_id IN (SELECT inbox_id FROM attention))
),
page AS (
  SELECT inbox_id FROM matching WHERE inbox_id > $5::text ORDER BY inbox_id LIMIT $6
)
SELECT
  (SELECT now FROM clock) AS now,
  (SELECT count(*) FROM matching) AS total,
  (SELECT count(*) FROM attention) AS need_attention,
  s.*
FROM (SELECT 1) AS one
LEFT JOIN LATERAL (
  SELECT
    i.inbox_id, i.holder, i.gen, i.lease_until,
    CASE WHEN w.wake_at <= (SELECT now FROM clock) THEN w.wake_at END AS ready_since,
    (SELECT count(*) FROM events e WHERE e.inbox_id = p.inbox_id AND e.status = 'pending') AS pending,
    (SELECT count(*) FROM events e WHERE e.inbox_id = p.inbox_id AND e.status = 'running') AS running,
    (SELECT count(*) FROM events e WHERE e.inbox_id = p.inbox_id AND e.status = 'done') AS done,
    (SELECT count(*) FROM events e WHERE e.inbox_id = p.inbox_id AND e.status = 'dead') AS dead,
    (SELECT min(due) FROM timers t WHERE t.inbox_id = p.inbox_id AND NOT t.done) AS next_timer_at,
    (SELECT count(*) FROM outbox o WHERE o.inbox_id = p.inbox_id AND o.sent_at IS NULL) AS outbox_held,
    (SELECT count(*) FROM approvals a
      WHERE a.inbox_id = p.inbox_id AND a.answer IS NULL AND a.expires_at > (SELECT now FROM clock)) AS approvals_pending
  FROM page p
  JOIN inboxes i ON i.inbox_id = p.inbox_id
  LEFT JOIN work w ON w.inbox_id = p.inbox_id
) AS s ON true
ORDER BY s.inbox_id`;

export const LIST_APPROVALS = `
SELECT id, action, requested_at, expires_at, answer, answered_at FROM approvals
WHERE inbox_id = $1 ORDER BY requested_at DESC, id DESC LIMIT $2`;

/**
 * Held messages oldest first, the latest sent newest first, and when the
 * next send may go: the work table's send_at (R9's gap, urgent messages, a
 * dispatch in flight), exact after every write of the inbox.
 */
export const OUTBOX_VIEW = `
SELECT 'held' AS part, h.* FROM (
  SELECT id, body, urgent, created_at, sent_at FROM outbox
  WHERE inbox_id = $1 AND sent_at IS NULL ORDER BY id LIMIT $2) h
UNION ALL
SELECT 'sent', s.* FROM (
  SELECT id, body, urgent, created_at, sent_at FROM outbox
  WHERE inbox_id = $1 AND sent_at IS NOT NULL ORDER BY sent_at DESC, id DESC LIMIT $2) s`;

export const NEXT_SEND_AT = 'SELECT send_at FROM work WHERE inbox_id = $1';

/** Messages a channel did not take, not yet redriven, newest first (outbox_failures_open). */
export const FAILED = `
SELECT f.message_id, o.body, f.channel, f.kind, f.error, f.failed_at
FROM outbox_failures f JOIN outbox o ON o.id = f.message_id
WHERE f.inbox_id = $1 AND f.redriven_at IS NULL ORDER BY f.id DESC LIMIT $2`;

/** Through the partial index outbox_held: the cost follows what is held, not what was ever sent. */
export const HELD_COUNT = 'SELECT count(*)::int AS n FROM outbox WHERE inbox_id = $1 AND sent_at IS NULL';

/**
 * Events received, and finished with the runs that finished them, per
 * bucket ($2 since, $3 bucketMs, $4 now). Run with index scans only
 * (PostgresStore.queryByIndex): each part reads its index range in order,
 * index only, and runs (the distinct (finished_at, claim_gen) pairs) are
 * grouped as the covering events_by_finished delivers them, with no hash
 * table or sort over the window. Left to itself the planner scanned the
 * inbox's heap when the window spans most of its history, then hashed
 * every pair: 2-3x slower at 100,000 events.
 */
export const ACTIVITY = `
SELECT (received_at - $2) / $3 AS bucket, count(*) AS received, 0 AS finished, 0 AS runs
FROM events WHERE inbox_id = $1 AND received_at >= $2 AND received_at <= $4
GROUP BY 1
UNION ALL
SELECT run.bucket, 0, sum(run.n), count(*) FROM (
  SELECT (finished_at - $2) / $3 AS bucket, count(*) AS n
  FROM events WHERE inbox_id = $1 AND finished_at >= $2 AND finished_at <= $4 AND status IN ('done', 'dead')
  GROUP BY finished_at, claim_gen) AS run
GROUP BY run.bucket`;
