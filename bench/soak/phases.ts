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
 *
 * Before it, a warm-up at the steady rate (--warmup-seconds, default 30),
 * sampled but outside the plan and its checks: fresh worker processes on a
 * fresh schema took seconds per event for their first 20-30 s in the smoke
 * runs, and counted in the first phase that start would set its p99, the
 * baseline the horizon's recovery is judged against.
 */
import type { StoreKind } from './config.js';

export type PhaseName = 'warmup' | 'steady' | 'surge' | 'horizon' | 'after-horizon' | 'kills' | 'recovery';

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

export function phasePlan(minutes: number, store: StoreKind, warmupMs: number): Phase[] {
  const total = PLAN.reduce((sum, p) => sum + p.weight, 0);
  const unitMs = (minutes * 60_000) / total;
  const warmup: Phase[] = warmupMs > 0 ? [{ name: 'warmup', startMs: 0, endMs: warmupMs, rateFactor: 1, fault: 'none', skipped: null }] : [];
  let at = 0;
  return [
    ...warmup,
    ...PLAN.map((p): Phase => {
      const startMs = warmupMs + Math.round(at * unitMs);
      at += p.weight;
      const skipped = p.fault === 'horizon' && store === 'sqlite' ? 'SQLite has no xmin horizon: steady load only' : null;
      return { name: p.name, startMs, endMs: warmupMs + Math.round(at * unitMs), rateFactor: p.rateFactor, fault: skipped === null ? p.fault : 'none', skipped };
    }),
  ];
}

/** The phase at `ms` from the start of the load; after the plan, 'drain'. */
export function phaseAt(phases: readonly Phase[], ms: number): PhaseName | 'drain' {
  return phases.find((p) => ms >= p.startMs && ms < p.endMs)?.name ?? 'drain';
}
