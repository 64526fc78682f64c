/** R4: what one run claims, in one fenced transaction (R3). */
import type { ClaimedEvent } from '../contract.js';
import type { InboxTx } from './inbox-tx.js';
import { holdsLease, LEASE_HELD } from './lease.js';

/**
 * When a retried event may run again: its last claim plus
 * min(base * 2^(attempts-1), max), exact, no jitter. float8 holds every
 * product up to 2^53 exactly, and anything larger is above max anyway.
 */
export function retryReadyAt(baseParam: string, maxParam: string): string {
  return `last_claim_at + LEAST(${baseParam}::float8 * 2::float8 ^ LEAST(attempts - 1, 40), ${maxParam}::float8)::bigint`;
}

// Rows left running by an older generation belong to a worker that lost its lease.
const RESET_ABANDONED = `
UPDATE events
SET status = 'pending',
    error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing',
    last_error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing'
WHERE inbox_id = $1 AND status = 'running' AND claim_gen < $3 AND ${LEASE_HELD}`;

const KILL_EXHAUSTED = `
UPDATE events SET status = 'dead', error = 'too many attempts', finished_at = $4
WHERE inbox_id = $1 AND status = 'pending' AND attempts >= $5 AND ${LEASE_HELD}`;

// The oldest retried event whose backoff has passed is claimed alone;
// otherwise every never-tried event up to the batch limit, oldest first.
const CLAIM = `
WITH retry AS (
  SELECT id FROM events
  WHERE inbox_id = $1 AND status = 'pending' AND attempts > 0 AND ${retryReadyAt('$6', '$7')} <= $4
  ORDER BY id LIMIT 1
), fresh AS (
  SELECT id FROM events
  WHERE inbox_id = $1 AND status = 'pending' AND attempts = 0 AND NOT EXISTS (SELECT 1 FROM retry)
  ORDER BY id LIMIT $5
)
UPDATE events
SET status = 'running', attempts = attempts + 1, claim_gen = $3, last_claim_at = $4
WHERE inbox_id = $1 AND status = 'pending' AND ${LEASE_HELD}
  AND id IN (SELECT id FROM retry UNION ALL SELECT id FROM fresh)
RETURNING id, source, source_id, payload, attempts`;

interface ClaimedRow {
  id: number;
  source: string;
  source_id: string;
  payload: string;
  attempts: number;
}

/**
 * Attempts are counted at claim, not at failure: a worker that crashes
 * never records a failure, so counting at failure would let a poison event
 * kill every worker forever. A retried event is claimed alone, so it cannot
 * take the healthy events of its first batch down with it again.
 */
export async function claimBatch(tx: InboxTx, holder: string, gen: number): Promise<ClaimedEvent[]> {
  if (!holdsLease(tx, holder, gen)) return [];
  const { maxAttempts, batchLimit, retryBackoff } = tx.options;
  const fence = [tx.inboxId, holder, gen, tx.now];
  await tx.run(RESET_ABANDONED, fence);
  await tx.run(KILL_EXHAUSTED, [...fence, maxAttempts]);
  const rows = await tx.rows<ClaimedRow>(CLAIM, [...fence, batchLimit, retryBackoff.baseMs, retryBackoff.maxMs]);
  return rows
    .map((row) => ({
      id: row.id,
      source: row.source,
      sourceId: row.source_id,
      payload: JSON.parse(row.payload) as unknown,
      attempts: row.attempts,
    }))
    .sort((a, b) => a.id - b.id); // RETURNING order is unspecified
}
