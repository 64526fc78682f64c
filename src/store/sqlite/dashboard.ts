/**
 * The dashboard's reads of one inbox: its summary on the overview, its
 * approvals, its outbox and its activity over time. Each reads indexes on
 * what it lists, so its cost follows the page, not the inbox's history.
 */
import type { ActivityBucket, ApprovalRow, InboxSummary, OutboxView } from '../contract.js';
import {
  toActivity,
  toApprovalRow,
  toOutboxFailure,
  toOutboxRow,
  toSummary,
  type ActivityRecord,
  type ApprovalRecord,
  type FailureRecord,
  type OutboxRecord,
  type SummaryRecord,
} from '../rows.js';
import type { CheckedActivityQuery } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';
import { readLease } from './lease.js';
import { EVENT_COUNTS } from './read.js';
import { computeWake } from './wake.js';
import { boundLimit } from './bound-limit.js';

const SUMMARY = `
SELECT ${EVENT_COUNTS},
  (SELECT min(due) FROM timers WHERE done = 0) AS next_timer_at,
  (SELECT count(*) FROM outbox WHERE sent_at IS NULL) AS outbox_held,
  (SELECT count(*) FROM approvals WHERE answer IS NULL AND expires_at > @now) AS approvals_pending`;

/** `readySince` comes from the ready index (the hint the workers follow), not from here. */
export function inboxSummary(c: InboxDb, now: number, readySince: number | null): InboxSummary {
  const row = c.stmt(SUMMARY).get({ now }) as SummaryRecord;
  return toSummary(c.inboxId, row, readLease(c), readySince);
}

const APPROVALS = `
SELECT id, action, requested_at, expires_at, answer, answered_at FROM approvals
ORDER BY requested_at DESC, id DESC ${boundLimit('?')}`;

export function listApprovals(c: InboxDb, limit: number): ApprovalRow[] {
  return (c.stmt(APPROVALS).all(limit) as ApprovalRecord[]).map(toApprovalRow);
}

// Through outbox_held, sorted: a walk in id order would read every message ever sent.
const HELD = `SELECT id, body, urgent, created_at, sent_at FROM outbox INDEXED BY outbox_held WHERE sent_at IS NULL ORDER BY id ${boundLimit('?')}`;
/** Through the partial index outbox_held: the cost follows what is held, not what was ever sent. */
const HELD_COUNT = 'SELECT count(*) FROM outbox WHERE sent_at IS NULL';
const SENT = `
SELECT id, body, urgent, created_at, sent_at FROM outbox WHERE sent_at IS NOT NULL
ORDER BY sent_at DESC, id DESC ${boundLimit('?')}`;

const FAILED = `
SELECT f.message_id, o.body, f.channel, f.kind, f.error, f.failed_at
FROM outbox_failures f JOIN outbox o ON o.id = f.message_id
WHERE f.redriven_at IS NULL ORDER BY f.id DESC ${boundLimit('?')}`;

/** nextSendAt is what the ready index holds as send_at (wake.ts): R9's gap, urgent messages, a dispatch in flight. */
export function outboxView(c: InboxDb, now: number, limit: number): OutboxView {
  const held = (c.stmt(HELD).all(limit) as OutboxRecord[]).map(toOutboxRow);
  const sent = (c.stmt(SENT).all(limit) as OutboxRecord[]).map(toOutboxRow);
  const heldCount = held.length < limit ? held.length : (c.stmt(HELD_COUNT).pluck().get() as number);
  const failed = (c.stmt(FAILED).all(limit) as FailureRecord[]).map(toOutboxFailure);
  return { held, heldCount, sent, nextSendAt: computeWake(c, now).sendAt, failed };
}

// Two passes over the inbox's events, grouped by bucket: no index serves
// them (ingest is the hot path, and an index on received_at or finished_at
// would cost every ingest or finish one more entry for a chart). About
// 35 ms for an inbox of 100,000 events; `+status` keeps SQLite off the status
// index, which would walk every done event. The last bucket ends at now.
const ACTIVITY = `
SELECT CAST((received_at - @since) / @bucketMs AS INTEGER) AS bucket, count(*) AS received, 0 AS finished, 0 AS runs
FROM events WHERE received_at >= @since AND received_at <= @now
GROUP BY 1
UNION ALL
SELECT CAST((finished_at - @since) / @bucketMs AS INTEGER), 0, count(*), count(DISTINCT finished_at || ':' || ifnull(claim_gen, ''))
FROM events WHERE finished_at >= @since AND finished_at <= @now AND +status IN ('done', 'dead')
GROUP BY 1`;

export function activity(c: InboxDb, query: CheckedActivityQuery, now: number, count: number): ActivityBucket[] {
  const rows = c.stmt(ACTIVITY).all({ ...query, now }) as ActivityRecord[];
  return toActivity(rows, query, count);
}
