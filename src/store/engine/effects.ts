/**
 * The ledger of side effects' rules (contract/effects.ts), decided here once
 * and run by both backends inside their transaction, on the rows they read:
 * what starting a call does to the row already under its key, and which
 * `started` rows are unknown.
 */
import { VigilError } from '../../errors.js';
import type { EffectRow, EffectStart, EffectState, LeaseInfo } from '../contract.js';
import type { StoredEffects } from './port.js';

/** What `startEffect` writes: a new row, the row started again (it was intended, or failed), or nothing and the answer. */
export type StartPlan = { write: 'insert' | 'start' } | { answer: Exclude<EffectStart, 'started'> };

/**
 * A call whose key has no row, or whose row is `intended` (an approved call
 * about to run) or `failed` (its tool said it did not happen), starts. A
 * `started` one may have happened (its run is gone, or it is this run's own
 * call and the toolbox already knows): it is unknown and must not run. A
 * `confirmed` one happened.
 */
export function planStart(existing: EffectState | null): StartPlan {
  if (existing === null) return { write: 'insert' };
  if (existing === 'intended' || existing === 'failed') return { write: 'start' };
  return { answer: existing === 'started' ? 'unknown' : 'confirmed' };
}

/**
 * A `started` call is unknown once the run that started it is gone: the
 * lease has moved to a newer generation, or the one it was started under
 * has expired. A run still holding its lease is in the middle of it.
 */
export function isUnknown(row: { state: EffectState; gen: number | null }, lease: LeaseInfo | null, now: number): boolean {
  if (row.state !== 'started') return false;
  return lease === null || row.gen === null || row.gen < lease.gen || lease.until < now;
}

/** settleEffect's rule: only an unknown call is settled by hand; anything else changes nothing. */
export function checkSettleable(key: string, row: { state: EffectState; gen: number | null } | null, lease: LeaseInfo | null, now: number): void {
  if (row === null) throw new VigilError('not_unknown', `no side effect has the key ${JSON.stringify(key)}`);
  if (!isUnknown(row, lease, now)) {
    throw new VigilError('not_unknown', `the side effect ${JSON.stringify(key)} is ${row.state === 'started' ? 'running in a live run' : row.state}, not unknown: nothing changed`);
  }
}

/** A backend's rows as the contract gives them, each marked unknown or not; `unknown` keeps only those. */
export function toEffectRows({ rows, lease, now }: StoredEffects, which: 'unknown' | 'all'): EffectRow[] {
  const all = rows.map((row) => ({
    key: row.key,
    tool: row.tool,
    input: JSON.parse(row.inputJson) as Record<string, unknown>,
    inputHash: row.inputHash,
    state: row.state,
    unknown: isUnknown(row, lease, now),
    intendedAt: row.intendedAt,
    startedAt: row.startedAt,
    settledAt: row.settledAt,
  }));
  return which === 'all' ? all : all.filter((row) => row.unknown);
}
