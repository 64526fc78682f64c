/**
 * R2 (the lease) and R3 (fencing). One row says who owns the inbox, in which
 * generation, until when. A lease is valid while `until >= now`.
 */
import type { LeaseInfo } from '../contract.js';
import type { InboxDb } from './inbox-db.js';

const READ_LEASE = 'SELECT holder, gen, until FROM lease WHERE one = 1';
const WRITE_LEASE = `
INSERT INTO lease (one, holder, gen, until) VALUES (1, ?, ?, ?)
ON CONFLICT (one) DO UPDATE SET holder = excluded.holder, gen = excluded.gen, until = excluded.until`;

export function readLease(c: InboxDb): LeaseInfo | null {
  return (c.stmt(READ_LEASE).get() as LeaseInfo | undefined) ?? null;
}

/**
 * R2: renewing keeps the generation; any takeover, even by the same holder
 * after its lease lapsed, starts a new one, so a worker that slept through
 * its expiry can never pass the fence with its old claim.
 */
export function acquireLease(c: InboxDb, holder: string, now: number): number | null {
  const lease = readLease(c);
  let gen: number;
  if (lease === null) gen = 1;
  else if (lease.holder === holder && lease.until >= now) gen = lease.gen;
  else if (lease.until < now) gen = lease.gen + 1;
  else return null;
  c.stmt(WRITE_LEASE).run(holder, gen, now + c.options.leaseTtlMs);
  return gen;
}

/** R3: the caller still holds an unexpired lease in the same generation. */
export function holdsLease(c: InboxDb, holder: string, gen: number, now: number): boolean {
  const lease = readLease(c);
  return lease !== null && lease.holder === holder && lease.gen === gen && lease.until >= now;
}

/** R2: ends the lease now, so the next acquire takes over at once with gen + 1. */
export function releaseLease(c: InboxDb, holder: string, gen: number, now: number): boolean {
  if (!holdsLease(c, holder, gen, now)) return false;
  c.stmt('UPDATE lease SET until = ? WHERE one = 1').run(now - 1);
  return true;
}
