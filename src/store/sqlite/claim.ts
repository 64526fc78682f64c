/** R4: what one run claims, in one fenced transaction. */
import type { Claim } from '../engine/port.js';
import { toClaimedEvents, toDeadEvents, type ClaimedRecord, type DeadRecord } from '../rows.js';
import type { InboxDb } from './inbox-db.js';
import { holdsLease } from './lease.js';
import { boundLimit } from './bound-limit.js';
import { pausedForSpend } from './spend.js';

// Every UPDATE here is OR IGNORE, as ingest.ts's inserts are, and for the same reason: a statement
// that may change many rows and may abort half-way gets a statement journal, a copy of every page it
// touches (with 2 KB payloads, two fifths of what claiming and finishing 100 events cost). Their
// statuses are constants the CHECK allows and they set no NOT NULL column to NULL, so no row is
// ever ignored: SQLite only learns that nothing can abort.

// Rows left running by an older generation belong to a worker that lost its lease.
export const RESET_ABANDONED = `
UPDATE OR IGNORE events SET status = 'pending', error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing',
                  last_error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing'
WHERE status = 'running' AND claim_gen < ?`;

export const KILL_EXHAUSTED = `
UPDATE OR IGNORE events SET status = 'dead', error = 'too many attempts', finished_at = ?
WHERE status = 'pending' AND attempts >= ?
RETURNING id, source, source_id, attempts, last_error`;

// The oldest retried event whose backoff has passed: now >= last claim + min(base * 2^(attempts-1), max).
const NEXT_RETRY = `
SELECT id FROM events
WHERE status = 'pending' AND attempts > 0
  AND last_claim_at + min(@baseMs * (1 << min(attempts - 1, 40)), @maxMs) <= @now
ORDER BY id LIMIT 1`;

export const CLAIM_ONE = `
UPDATE OR IGNORE events SET status = 'running', attempts = attempts + 1, claim_gen = @gen, last_claim_at = @now
WHERE id = @id
RETURNING id, source, source_id, payload, attempts`;

export const CLAIM_FRESH = `
UPDATE OR IGNORE events SET status = 'running', attempts = attempts + 1, claim_gen = @gen, last_claim_at = @now
WHERE id IN (SELECT id FROM events WHERE status = 'pending' AND attempts = 0 ORDER BY id ${boundLimit('@limit')})
RETURNING id, source, source_id, payload, attempts`;

/**
 * Attempts are counted at claim, not at failure: a worker that crashes
 * never records a failure, so counting at failure would let a poison event
 * kill every worker forever. A retried event is claimed alone, so it cannot
 * take the healthy events of its first batch down with it again.
 */
export function claimBatch(c: InboxDb, holder: string, gen: number, now: number): Claim {
  if (!holdsLease(c, holder, gen, now)) return { events: [], dead: [] };
  // Paused for spend (engine/budget.ts): its events wait, untouched: no attempt counted, nothing made dead.
  if (pausedForSpend(c, now)) return { events: [], dead: [] };
  const { maxAttempts, batchLimit, retryBackoff } = c.options;
  c.stmt(RESET_ABANDONED).run(gen);
  const dead = c.stmt(KILL_EXHAUSTED).all(now, maxAttempts) as DeadRecord[];
  const retryId = c.stmt(NEXT_RETRY).pluck().get({ ...retryBackoff, now }) as number | undefined;
  const rows = (
    retryId !== undefined
      ? c.stmt(CLAIM_ONE).all({ gen, now, id: retryId })
      : c.stmt(CLAIM_FRESH).all({ gen, now, limit: batchLimit })
  ) as ClaimedRecord[];
  return { events: toClaimedEvents(rows), dead: toDeadEvents(dead) };
}
