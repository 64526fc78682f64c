/**
 * Retention on one PostgreSQL inbox (contract.ts, RetentionOptions):
 * finished rows past their cutoff go, oldest first, at most `limit` in one
 * transaction, so autovacuum keeps up with short batches. A pruned event's
 * key moves to tombstones in the same statement.
 *
 * It runs beside the inbox's writers, not under their row lock
 * (inbox-tx.ts, besideWriters): a batch of deletes would otherwise hold up
 * every ingest of the inbox for as long as it takes. What makes that safe:
 *   - it removes only rows no writer changes any more, and each DELETE
 *     checks that on the row it deletes (a dead event being redriven at the
 *     same moment is no longer dead, and stays);
 *   - an ingest of a key it is moving waits on that key, and then finds the
 *     tombstone in a fresh look (functions/ingest.sql, vigil_insert_events);
 *   - deleteInbox waits for it, so no tombstone outlives its inbox.
 */
import type { PruneResult } from '../contract.js';
import { PruneBudget } from '../engine/lifecycle.js';
import type { PruneCutoffs } from '../engine/port.js';
import type { InboxTx } from './inbox-tx.js';

// A NULL cutoff keeps that kind: GREATEST skips it, and `<= NULL` is never true.
// Picked through events_by_finished (inbox_id, finished_at, …), then deleted where the pick
// found them: by ctid, a TID scan whatever the planner makes of the inbox's size (events have
// no index on id alone, migration 013).
export const FINISHED_EVENTS = `
WITH gone AS (
  DELETE FROM events e WHERE e.ctid = ANY (ARRAY(
    SELECT ctid FROM events
    WHERE inbox_id = $1 AND finished_at <= GREATEST($2::bigint, $3::bigint) AND status IN ('done', 'dead')
      AND finished_at <= CASE status WHEN 'done' THEN $2::bigint ELSE $3::bigint END
    ORDER BY finished_at LIMIT $4))
    -- Checked again on the row as it is when deleted (a redrive may have changed it since the pick).
    AND e.finished_at <= CASE e.status WHEN 'done' THEN $2::bigint WHEN 'dead' THEN $3::bigint END
  RETURNING e.source, e.source_id
), buried AS (
  INSERT INTO tombstones (inbox_id, source, source_id) SELECT $1, source, source_id FROM gone
  ON CONFLICT DO NOTHING
)
SELECT count(*)::int AS n FROM gone`;

// A message some channel did not take stays until it is redriven (its body is what a redrive sends).
const SENT_MESSAGES = `
WITH picked AS (
  SELECT id FROM outbox
  WHERE inbox_id = $1 AND sent_at IS NOT NULL AND sent_at <= $2
    AND id NOT IN (SELECT message_id FROM outbox_failures WHERE inbox_id = $1 AND redriven_at IS NULL)
  ORDER BY sent_at, id LIMIT $3
), failures AS (
  DELETE FROM outbox_failures WHERE inbox_id = $1 AND message_id IN (SELECT id FROM picked)
)
DELETE FROM outbox WHERE id IN (SELECT id FROM picked) AND sent_at IS NOT NULL`;

const ANSWERED_APPROVALS = `
DELETE FROM approvals WHERE inbox_id = $1 AND id IN (
  SELECT id FROM approvals WHERE inbox_id = $1 AND answer IS NOT NULL AND answered_at <= $2 ORDER BY answered_at LIMIT $3)`;

const OLD_ACTIONS = `
DELETE FROM operator_actions WHERE id IN (
  SELECT id FROM operator_actions WHERE inbox_id = $1 AND at <= $2 ORDER BY id LIMIT $3)`;

// The ledger's settled calls; an unknown (started) one stays until someone settles it.
const SETTLED_EFFECTS = `
DELETE FROM effects WHERE inbox_id = $1 AND key IN (
  SELECT key FROM effects WHERE inbox_id = $1 AND state IN ('confirmed', 'failed') AND settled_at <= $2 ORDER BY settled_at LIMIT $3)`;

// Rows no writer changes once written (a finish only inserts them).
const OLD_USAGE = `
DELETE FROM usage WHERE inbox_id = $1 AND id IN (
  SELECT id FROM usage WHERE inbox_id = $1 AND at <= $2 ORDER BY at LIMIT $3)`;

export async function pruneRows(tx: InboxTx, cutoffs: PruneCutoffs, limit: number): Promise<PruneResult> {
  const budget = new PruneBudget(limit);
  if (cutoffs.doneEvents !== null || cutoffs.deadEvents !== null) {
    const give = budget.next;
    const [row] = await tx.rows<{ n: number }>(FINISHED_EVENTS, [tx.inboxId, cutoffs.doneEvents, cutoffs.deadEvents, give]);
    budget.took('events', row!.n, give);
  }
  if (cutoffs.sentMessages !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('messages', await tx.run(SENT_MESSAGES, [tx.inboxId, cutoffs.sentMessages, give]), give);
  }
  if (cutoffs.answeredApprovals !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('approvals', await tx.run(ANSWERED_APPROVALS, [tx.inboxId, cutoffs.answeredApprovals, give]), give);
  }
  if (cutoffs.actions !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('actions', await tx.run(OLD_ACTIONS, [tx.inboxId, cutoffs.actions, give]), give);
  }
  if (cutoffs.settledEffects !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('effects', await tx.run(SETTLED_EFFECTS, [tx.inboxId, cutoffs.settledEffects, give]), give);
  }
  if (cutoffs.usage !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('usage', await tx.run(OLD_USAGE, [tx.inboxId, cutoffs.usage, give]), give);
  }
  return budget.result;
}
