/**
 * The phase plan: what the offered load and the faults are at each moment.
 *
 * The order (steady, 1.5x, a held xmin horizon, SIGKILLed workers,
 * recovery), with one phase added where the issue is silent: a fault-free
 * stretch at the steady rate right after the idle transaction ends
 * ("after-horizon"). The check "p99 back under 2x within 2 minutes of the
 * idle transaction ending" needs those minutes free of kills, which stall
 * an inbox for up to one lease by design; at the 30-minute plan it lasts
 * 3 minutes. The whole plan (--minutes) is shared by fixed weights.
 */
import type { StoreKind } from './config.js';

export type PhaseName = 'steady' | 'surge' | 'horizon' | 'after-horizon' | 'kills' | 'recovery';

export type Fault = 'none' | 'horizon' | 'kills';

export interface Phase {
  name: PhaseName;
  /** From the start of the load, in ms. */
  startMs: number;
  endMs: number;
  /** Times the steady rate. */
  rateFactor: number;
  fault: Fault;
  /** Why a fault does not apply here (SQLite has no xmin horizon), or null. */
  skipped: string | null;
}

/** Weights out of 30: at --minutes 30 each unit is one minute. */
const PLAN: { name: PhaseName; weight: number; rateFactor: number; fault: Fault }[] = [
  { name: 'steady', weight: 6, rateFactor: 1, fault: 'none' },
  { name: 'surge', weight: 4, rateFactor: 1.5, fault: 'none' },
  { name: 'horizon', weight: 6, rateFactor: 1, fault: 'horizon' },
  { name: 'after-horizon', weight: 3, rateFactor: 1, fault: 'none' },
  { name: 'kills', weight: 5, rateFactor: 1, fault: 'kills' },
  { name: 'recovery', weight: 6, rateFactor: 1, fault: 'none' },
];

export const PHASE_NAMES: readonly PhaseName[] = PLAN.map((p) => p.name);

export function phasePlan(minutes: number, store: StoreKind): Phase[] {
  const total = PLAN.reduce((sum, p) => sum + p.weight, 0);
  const unitMs = (minutes * 60_000) / total;
  let at = 0;
  return PLAN.map((p) => {
    const startMs = Math.round(at * unitMs);
    at += p.weight;
    const skipped = p.fault === 'horizon' && store === 'sqlite' ? 'SQLite has no xmin horizon: steady load only' : null;
    return { name: p.name, startMs, endMs: Math.round(at * unitMs), rateFactor: p.rateFactor, fault: skipped === null ? p.fault : 'none', skipped };
  });
}

/** The phase at `ms` from the start of the load; after the plan, 'drain'. */
export function phaseAt(phases: readonly Phase[], ms: number): PhaseName | 'drain' {
  return phases.find((p) => ms >= p.startMs && ms < p.endMs)?.name ?? 'drain';
}
