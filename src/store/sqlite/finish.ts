/**
 * R3 (fencing), R5 (errors) and R6 (dead at once): a run's outcome, its
 * messages, its session and its memory in one transaction.
 */
import type { Usage } from '../contract.js';
import type { CheckedFinish } from '../engine/port.js';
import { MEMORY_LIMITS, memoryFull, type CheckedOutcome } from '../engine/validate/index.js';
import { requestApproval } from './approvals.js';
import { intendEffects, settleRunEffects } from './effects.js';
import type { InboxDb } from './inbox-db.js';
import { holdsLease } from './lease.js';

const COUNT_OWNED = `
SELECT count(*) FROM events
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running' AND claim_gen = ?`;

// OR IGNORE, as claim.ts's UPDATEs (which say why): no statement journal, and no row ever ignored.
export const MARK_DONE = `
UPDATE OR IGNORE events SET status = 'done', error = NULL, finished_at = ?
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running' AND claim_gen = ?`;

export const MARK_FAILED = `
UPDATE OR IGNORE events SET status = 'pending', error = ?, last_error = ?
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running' AND claim_gen = ?`;

export const MARK_DEAD = `
UPDATE OR IGNORE events SET status = 'dead', error = ?, last_error = ?, finished_at = ?
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running' AND claim_gen = ?`;

const QUEUE_MESSAGE = 'INSERT INTO outbox (body, urgent, created_at) VALUES (?, ?, ?)';

const RECORD_USAGE = `
INSERT INTO usage (at, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, unpriced)
VALUES (?, ?, ?, ?, ?, ?, ?)`;

const SAVE_SESSION = `
INSERT INTO session (one, state, updated_at) VALUES (1, ?, ?)
ON CONFLICT (one) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`;

const SET_MEMORY = `
INSERT INTO memory (key, value, updated_at) VALUES (?, ?, ?)
ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;

const MEMORY_BYTES = 'SELECT coalesce(sum(length(CAST(key AS BLOB)) + length(CAST(value AS BLOB))), 0) FROM memory';

/**
 * Refused (false, nothing changed) unless this holder still holds the lease
 * in the generation that claimed every one of `ids`, and they are all still
 * running. Refusing the whole call, rather than finishing whatever still
 * matches, means a finish retried after a lost response cannot queue its
 * messages twice, and a reply is never queued for an event that will run again.
 */
export function finishRun(c: InboxDb, { holder, gen, ids, outcome }: CheckedFinish, now: number): boolean {
  if (!holdsLease(c, holder, gen, now)) return false;
  const idsJson = JSON.stringify(ids);
  if (ids.length > 0 && (c.stmt(COUNT_OWNED).pluck().get(idsJson, gen) as number) !== ids.length) return false;
  // With any outcome, past the fence: spent once, recorded once.
  if (outcome.usage !== null) recordUsage(c, outcome.usage, now);
  // The ledger: the calls this run started are settled with its finish, an error's too (a tool that threw failed it).
  if (outcome.effects.length > 0) settleRunEffects(c, gen, outcome.effects, now);
  if (outcome.error !== null && outcome.dead) {
    // R6 without the wait: no retry can fix it, so it goes where an operator looks.
    c.stmt(MARK_DEAD).run(outcome.error, outcome.error, now, idsJson, gen);
    return true;
  }
  if (outcome.error !== null) {
    // R5: back to pending with the error; the claim's backoff decides when it runs again.
    c.stmt(MARK_FAILED).run(outcome.error, outcome.error, idsJson, gen);
    return true;
  }
  c.stmt(MARK_DONE).run(now, idsJson, gen);
  for (const message of outcome.messages) {
    c.stmt(QUEUE_MESSAGE).run(message.body, message.urgent ? 1 : 0, now);
  }
  for (const request of outcome.approvals) requestApproval(c, request, now);
  if (outcome.intents.length > 0) intendEffects(c, outcome.intents, now);
  saveAgentState(c, outcome, now);
  return true;
}

function recordUsage(c: InboxDb, usage: Usage, now: number): void {
  const { inputTokens, outputTokens, cacheReadTokens = 0, cacheWriteTokens = 0, costUsd = null, unpriced = false } = usage;
  c.stmt(RECORD_USAGE).run(now, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, unpriced || (costUsd === null) ? 1 : 0);
}

function saveAgentState(c: InboxDb, { session, memory }: CheckedOutcome, now: number): void {
  if (session === null) c.stmt('DELETE FROM session').run();
  else if (session !== undefined) c.stmt(SAVE_SESSION).run(session, now);
  if (memory.set.length === 0 && memory.delete.length === 0) return;
  for (const key of memory.delete) c.stmt('DELETE FROM memory WHERE key = ?').run(key);
  for (const { key, json } of memory.set) c.stmt(SET_MEMORY).run(key, json, now);
  const total = c.stmt(MEMORY_BYTES).pluck().get() as number;
  // Thrown inside the transaction: the whole finish rolls back, events still running.
  if (total > MEMORY_LIMITS.totalBytes) throw memoryFull(total);
}
