/**
 * R2's decision on the lease row, for a backend that decides in
 * TypeScript (SQLite). PostgreSQL's vigil_acquire (functions/lease.sql)
 * makes the same decision on its locked row, in one round trip.
 */
import type { LeaseInfo } from '../contract.js';

export type LeaseDecision = { gen: number; renewed: boolean } | null;

/**
 * Renewing keeps the generation; any takeover, even by the same holder
 * after its lease lapsed, starts a new one, so a worker that slept through
 * its expiry can never pass the fence with its old claim. A lease is valid
 * while `until >= now`.
 */
export function decideAcquire(lease: LeaseInfo | null, holder: string, now: number): LeaseDecision {
  if (lease === null) return { gen: 1, renewed: false };
  if (lease.holder === holder && lease.until >= now) return { gen: lease.gen, renewed: true };
  if (lease.until < now) return { gen: lease.gen + 1, renewed: false };
  return null;
}

/** R3: the caller still holds an unexpired lease in the same generation. */
export function holds(lease: LeaseInfo | null, holder: string, gen: number, now: number): boolean {
  return lease !== null && lease.holder === holder && lease.gen === gen && lease.until >= now;
}

/**
 * acquireAndClaim and finishAndClaim (contract.ts): after their claim, the
 * lease is released in the same transaction when the claim took nothing and
 * no event of the generation is still running, so a run that has nothing
 * more to do leaves nothing held. A generation with events still running
 * keeps its lease: its holder is not done with them (a renewal by a worker
 * in the middle of its run, a batch finished in parts).
 */
export function endsRun(claimed: number, stillRunning: boolean): boolean {
  return claimed === 0 && !stillRunning;
}

/** A worker holds the inbox now (whoever it is): deleteInbox waits for it to let go. */
export function leaseLive(lease: LeaseInfo | null, now: number): boolean {
  return lease !== null && lease.until >= now;
}
