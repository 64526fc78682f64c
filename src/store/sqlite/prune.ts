/**
 * Retention on one inbox file (contract.ts, RetentionOptions): finished
 * rows past their cutoff go, oldest first, at most `limit` in one
 * transaction. A pruned event leaves its key behind as a tombstone, which
 * ingest reads (ingest.ts), so a late redelivery is still a duplicate.
 */
import type { PruneResult } from '../contract.js';
import { PruneBudget } from '../engine/lifecycle.js';
import type { PruneCutoffs } from '../engine/port.js';
import type { InboxDb } from './inbox-db.js';
import { boundLimit } from './bound-limit.js';

/** A cutoff no row's time is at or before: that kind is kept. */
const KEEP = Number.MIN_SAFE_INTEGER;

// Read through events_finished (`status IN ('done', 'dead')` as its WHERE states it, so it applies),
// named, not left to the planner: without statistics it took events_by_status_attempts for the
// status terms and sorted every done event of the inbox by finished_at, in every call. A prune of
// 1,000 events then read the whole live history of the inbox (seconds, at 100,000 done events of
// 1 KB, all under the inbox's write lock), instead of the 1,000 oldest entries of this index.
export const FINISHED_EVENTS = `
SELECT id FROM events INDEXED BY events_finished
WHERE status IN ('done', 'dead') AND finished_at <= max(@done, @dead)
  AND finished_at <= CASE status WHEN 'done' THEN @done ELSE @dead END
ORDER BY finished_at ${boundLimit('@limit')}`;

const BURY = `
INSERT OR IGNORE INTO tombstones (source, source_id)
SELECT source, source_id FROM events WHERE id IN (SELECT value FROM json_each(?))`;

// A message some channel did not take stays until it is redriven (its body is what a redrive sends).
export const SENT_MESSAGES = `
SELECT id FROM outbox
WHERE sent_at IS NOT NULL AND sent_at <= @cutoff
  AND id NOT IN (SELECT message_id FROM outbox_failures WHERE redriven_at IS NULL)
ORDER BY sent_at, id ${boundLimit('@limit')}`;

const ANSWERED_APPROVALS = `
DELETE FROM approvals WHERE id IN (
  SELECT id FROM approvals WHERE answer IS NOT NULL AND answered_at <= @cutoff ORDER BY answered_at ${boundLimit('@limit')})`;

const OLD_ACTIONS = `
DELETE FROM operator_actions WHERE id IN (
  SELECT id FROM operator_actions WHERE at <= @cutoff ORDER BY id ${boundLimit('@limit')})`;

// The ledger's settled calls; an unknown (started) one stays until someone settles it.
const SETTLED_EFFECTS = `
DELETE FROM effects WHERE key IN (
  SELECT key FROM effects WHERE state IN ('confirmed', 'failed') AND settled_at <= @cutoff ORDER BY settled_at ${boundLimit('@limit')})`;

const OLD_USAGE = `
DELETE FROM usage WHERE id IN (
  SELECT id FROM usage WHERE at <= @cutoff ORDER BY at ${boundLimit('@limit')})`;

export function pruneRows(c: InboxDb, cutoffs: PruneCutoffs, limit: number): PruneResult {
  const budget = new PruneBudget(limit);
  if (cutoffs.doneEvents !== null || cutoffs.deadEvents !== null) {
    const give = budget.next;
    const ids = c.stmt(FINISHED_EVENTS).pluck().all({ done: cutoffs.doneEvents ?? KEEP, dead: cutoffs.deadEvents ?? KEEP, limit: give });
    const json = JSON.stringify(ids);
    c.stmt(BURY).run(json);
    c.stmt('DELETE FROM events WHERE id IN (SELECT value FROM json_each(?))').run(json);
    budget.took('events', ids.length, give);
  }
  if (cutoffs.sentMessages !== null && budget.next > 0) {
    const give = budget.next;
    const json = JSON.stringify(c.stmt(SENT_MESSAGES).pluck().all({ cutoff: cutoffs.sentMessages, limit: give }));
    c.stmt('DELETE FROM outbox_failures WHERE message_id IN (SELECT value FROM json_each(?))').run(json);
    budget.took('messages', c.stmt('DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?))').run(json).changes, give);
  }
  if (cutoffs.answeredApprovals !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('approvals', c.stmt(ANSWERED_APPROVALS).run({ cutoff: cutoffs.answeredApprovals, limit: give }).changes, give);
  }
  if (cutoffs.actions !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('actions', c.stmt(OLD_ACTIONS).run({ cutoff: cutoffs.actions, limit: give }).changes, give);
  }
  if (cutoffs.settledEffects !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('effects', c.stmt(SETTLED_EFFECTS).run({ cutoff: cutoffs.settledEffects, limit: give }).changes, give);
  }
  if (cutoffs.usage !== null && budget.next > 0) {
    const give = budget.next;
    budget.took('usage', c.stmt(OLD_USAGE).run({ cutoff: cutoffs.usage, limit: give }).changes, give);
  }
  return budget.result;
}
