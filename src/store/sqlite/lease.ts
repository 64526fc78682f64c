/**
 * R2 (the lease) and R3 (fencing) on one row: who owns the inbox, in which
 * generation, until when. The decisions are the engine's (engine/lease.ts).
 */
import type { LeaseInfo } from '../contract.js';
import { decideAcquire, holds } from '../engine/lease.js';
import type { Acquired } from '../engine/port.js';
import type { InboxDb } from './inbox-db.js';

const READ_LEASE = 'SELECT holder, gen, until FROM lease WHERE one = 1';
const WRITE_LEASE = `
INSERT INTO lease (one, holder, gen, until) VALUES (1, ?, ?, ?)
ON CONFLICT (one) DO UPDATE SET holder = excluded.holder, gen = excluded.gen, until = excluded.until`;
// Any event still running when a new generation starts was claimed by an older one.
const ANY_RUNNING = "SELECT EXISTS (SELECT 1 FROM events WHERE status = 'running')";

export function readLease(c: InboxDb): LeaseInfo | null {
  return (c.stmt(READ_LEASE).get() as LeaseInfo | undefined) ?? null;
}

export function acquireLease(c: InboxDb, holder: string, now: number): (Acquired & { renewed: boolean }) | null {
  const decision = decideAcquire(readLease(c), holder, now);
  if (decision === null) return null;
  c.stmt(WRITE_LEASE).run(holder, decision.gen, now + c.options.leaseTtlMs);
  const takeover = !decision.renewed && anyRunning(c);
  return { gen: decision.gen, renewed: decision.renewed, takeover };
}

/** Whether any event is running (claimed and not finished), of whichever generation. */
export function anyRunning(c: InboxDb): boolean {
  return c.stmt(ANY_RUNNING).pluck().get() === 1;
}

/** R3: the caller still holds an unexpired lease in the same generation. */
export function holdsLease(c: InboxDb, holder: string, gen: number, now: number): boolean {
  return holds(readLease(c), holder, gen, now);
}

/** R2: ends the lease now, so the next acquire takes over at once with gen + 1. */
export function releaseLease(c: InboxDb, holder: string, gen: number, now: number): boolean {
  if (!holdsLease(c, holder, gen, now)) return false;
  c.stmt('UPDATE lease SET until = ? WHERE one = 1').run(now - 1);
  return true;
}
