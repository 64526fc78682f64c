/**
 * R2 (the lease) and R3 (fencing) on the inbox row: holder, gen, until. A
 * lease is valid while `until >= now`. The row is locked by the transaction
 * (inbox-tx.ts), so reading it and deciding in code is race-free; the writes
 * are fenced in their WHERE clause all the same, and 0 rows is a refusal.
 * With the default `clock: 'database'`, `now` is the server's clock (R13):
 * workers whose own clocks disagree still agree on who holds the lease.
 */
import type { InboxTx } from './inbox-tx.js';

/**
 * The fence every claim and finish write carries, with its parameters fixed
 * at $1 inbox, $2 holder, $3 gen, $4 now: the caller still holds an
 * unexpired lease in the same generation.
 */
export const LEASE_HELD = `EXISTS (
  SELECT 1 FROM inboxes
  WHERE inbox_id = $1 AND holder = $2 AND gen = $3 AND lease_until >= $4)`;

const TAKE_LEASE = `
UPDATE inboxes SET holder = $2, gen = $3, lease_until = $4
WHERE inbox_id = $1 AND gen = $5`;

const END_LEASE = `
UPDATE inboxes SET lease_until = $4 - 1
WHERE inbox_id = $1 AND holder = $2 AND gen = $3 AND lease_until >= $4`;

/** R3: the caller still holds an unexpired lease in the same generation. */
export function holdsLease(tx: InboxTx, holder: string, gen: number): boolean {
  const { inbox, now } = tx;
  return inbox.holder === holder && inbox.gen === gen && inbox.until !== null && inbox.until >= now;
}

/**
 * R2: renewing keeps the generation; any takeover, even by the same holder
 * after its lease lapsed, starts a new one, so a worker that slept through
 * its expiry can never pass the fence with its old claim.
 */
export async function acquireLease(tx: InboxTx, holder: string): Promise<number | null> {
  const { inbox, now } = tx;
  let gen: number;
  if (inbox.holder === holder && inbox.until !== null && inbox.until >= now) gen = inbox.gen;
  else if (inbox.until === null || inbox.until < now) gen = inbox.gen + 1;
  else return null;
  const changed = await tx.run(TAKE_LEASE, [tx.inboxId, holder, gen, now + tx.options.leaseTtlMs, inbox.gen]);
  return changed === 1 ? gen : null;
}

/** R2: ends the lease now, so the next acquire takes over at once with gen + 1. */
export async function releaseLease(tx: InboxTx, holder: string, gen: number): Promise<boolean> {
  if (!holdsLease(tx, holder, gen)) return false;
  return (await tx.run(END_LEASE, [tx.inboxId, holder, gen, tx.now])) === 1;
}
