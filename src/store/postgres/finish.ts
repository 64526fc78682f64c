/** R3 (fencing) and R5 (errors): a run's outcome and its messages in one transaction. */
import type { CheckedOutcome } from '../validate.js';
import type { InboxTx } from './inbox-tx.js';
import { holdsLease, LEASE_HELD } from './lease.js';

const COUNT_OWNED = `
SELECT count(*) AS owned FROM events
WHERE inbox_id = $1 AND id = ANY($2::bigint[]) AND status = 'running' AND claim_gen = $3`;

const MARK_DONE = `
UPDATE events SET status = 'done', error = NULL, finished_at = $4
WHERE inbox_id = $1 AND id = ANY($5::bigint[]) AND status = 'running' AND claim_gen = $3 AND ${LEASE_HELD}`;

// R5: back to pending with the error; the claim's backoff decides when it runs again.
const MARK_FAILED = `
UPDATE events SET status = 'pending', error = $6, last_error = $6
WHERE inbox_id = $1 AND id = ANY($5::bigint[]) AND status = 'running' AND claim_gen = $3 AND ${LEASE_HELD}`;

// Messages keep their order: ids are drawn in the order of the SELECT.
const QUEUE_MESSAGES = `
INSERT INTO outbox (inbox_id, body, urgent, created_at)
SELECT $1, m.body, m.urgent, $2
FROM unnest($3::text[], $4::boolean[]) WITH ORDINALITY AS m(body, urgent, n)
ORDER BY m.n`;

/**
 * Refused (false, nothing changed) unless this holder still holds the lease
 * in the generation that claimed every one of `ids`, and they are all still
 * running. Refusing the whole call, rather than finishing whatever still
 * matches, means a finish retried after a lost response cannot queue its
 * messages twice, and a reply is never queued for an event that will run again.
 */
export async function finishRun(tx: InboxTx, holder: string, gen: number, ids: number[], outcome: CheckedOutcome): Promise<boolean> {
  if (!holdsLease(tx, holder, gen)) return false;
  const fence = [tx.inboxId, holder, gen, tx.now];
  if (ids.length > 0) {
    const [row] = await tx.rows<{ owned: number }>(COUNT_OWNED, [tx.inboxId, ids, gen]);
    if (row?.owned !== ids.length) return false;
  }
  if (outcome.error !== null) {
    await tx.run(MARK_FAILED, [...fence, ids, outcome.error]);
    return true;
  }
  if (ids.length > 0) await tx.run(MARK_DONE, [...fence, ids]);
  if (outcome.messages.length > 0) {
    await tx.run(QUEUE_MESSAGES, [
      tx.inboxId,
      tx.now,
      outcome.messages.map((m) => m.body),
      outcome.messages.map((m) => m.urgent),
    ]);
  }
  return true;
}
