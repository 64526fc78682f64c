/** R3 (fencing) and R5 (errors): a run's outcome and its messages in one transaction. */
import type { CheckedOutcome } from '../validate.js';
import type { InboxDb } from './inbox-db.js';
import { holdsLease } from './lease.js';

const COUNT_OWNED = `
SELECT count(*) FROM events
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running' AND claim_gen = ?`;

const MARK_DONE = `
UPDATE events SET status = 'done', error = NULL, finished_at = ?
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running' AND claim_gen = ?`;

const MARK_FAILED = `
UPDATE events SET status = 'pending', error = ?, last_error = ?
WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running' AND claim_gen = ?`;

const QUEUE_MESSAGE = 'INSERT INTO outbox (body, urgent, created_at) VALUES (?, ?, ?)';

/**
 * Refused (false, nothing changed) unless this holder still holds the lease
 * in the generation that claimed every one of `ids`, and they are all still
 * running. Refusing the whole call, rather than finishing whatever still
 * matches, means a finish retried after a lost response cannot queue its
 * messages twice, and a reply is never queued for an event that will run again.
 */
export function finishRun(c: InboxDb, holder: string, gen: number, ids: number[], outcome: CheckedOutcome, now: number): boolean {
  if (!holdsLease(c, holder, gen, now)) return false;
  const idsJson = JSON.stringify(ids);
  if (ids.length > 0 && (c.stmt(COUNT_OWNED).pluck().get(idsJson, gen) as number) !== ids.length) return false;
  if (outcome.error !== null) {
    // R5: back to pending with the error; the claim's backoff decides when it runs again.
    c.stmt(MARK_FAILED).run(outcome.error, outcome.error, idsJson, gen);
    return true;
  }
  c.stmt(MARK_DONE).run(now, idsJson, gen);
  for (const message of outcome.messages) {
    c.stmt(QUEUE_MESSAGE).run(message.body, message.urgent ? 1 : 0, now);
  }
  return true;
}
