/**
 * Retention on one PostgreSQL inbox (contract.ts, RetentionOptions), under
 * its row lock: finished rows past their cutoff go, oldest first, at most
 * `limit` in one transaction, so autovacuum keeps up with short batches and
 * no ingest waits long. A pruned event's key moves to tombstones in the
 * same statement, which vigil_ingest reads (functions/ingest.sql).
 */
import type { PruneResult } from '../contract.js';
import { PruneBudget } from '../engine/lifecycle.js';
import type { PruneCutoffs } from '../engine/port.js';
import type { InboxTx } from './inbox-tx.js';

// A NULL cutoff keeps that kind: GREATEST skips it, and `<= NULL` is never true.
// Read through events_by_finished (inbox_id, finished_at, …).
const FINISHED_EVENTS = `
WITH gone AS (
  DELETE FROM events WHERE id IN (
    SELECT id FROM events
    WHERE inbox_id = $1 AND finished_at <= GREATEST($2::bigint, $3::bigint) AND status IN ('done', 'dead')
      AND finished_at <= CASE status WHEN 'done' THEN $2::bigint ELSE $3::bigint END
    ORDER BY finished_at LIMIT $4)
  RETURNING source, source_id
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
DELETE FROM outbox WHERE id IN (SELECT id FROM picked)`;

const ANSWERED_APPROVALS = `
DELETE FROM approvals WHERE inbox_id = $1 AND id IN (
  SELECT id FROM approvals WHERE inbox_id = $1 AND answer IS NOT NULL AND answered_at <= $2 ORDER BY answered_at LIMIT $3)`;

const OLD_ACTIONS = `
DELETE FROM operator_actions WHERE id IN (
  SELECT id FROM operator_actions WHERE inbox_id = $1 AND at <= $2 ORDER BY id LIMIT $3)`;

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
  return budget.result;
}
