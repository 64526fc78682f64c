/**
 * Runs the phase plan against the sides: sets each phase's offered rate,
 * starts and ends its fault (the idle transaction; the kills), and takes a
 * sample every sampleMs, cutting the window at each phase boundary so that
 * every sample lies in one phase. Then the drain: the load stops and the
 * backlog is given a bounded time to be delivered. Every wait ends by the
 * plan's clock or by the abort signal (Ctrl-C); nothing here loops on its own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { HeldHorizon } from './horizon.js';
import type { Phase, PhaseName } from './phases.js';
import type { Sampler } from './sampler.js';
import type { Side } from './side.js';

export interface TimelineOptions {
  phases: readonly Phase[];
  sides: readonly Side[];
  rate: number;
  sampleMs: number;
  killEveryMs: number;
  sampler: Sampler;
  /** Opens the idle-in-transaction session (PostgreSQL); null where there is no horizon to hold. */
  holdHorizon: (() => Promise<HeldHorizon>) | null;
  t0: number;
  signal: AbortSignal;
  log(line: string): void;
}

export interface Kill {
  /** Seconds from the start of the load. */
  t: number;
  side: string;
  child: string;
}

export interface TimelineRecord {
  horizon: { xid: string; heldFromS: number; releasedAtS: number } | null;
  kills: Kill[];
}

type Action =
  | { at: number; order: 0; kind: 'sample'; phase: PhaseName }
  | { at: number; order: 1; kind: 'end'; phase: Phase }
  | { at: number; order: 2; kind: 'start'; phase: Phase }
  | { at: number; order: 3; kind: 'kill' };

function actions(options: TimelineOptions): Action[] {
  const list: Action[] = [];
  for (const phase of options.phases) {
    list.push({ at: phase.startMs, order: 2, kind: 'start', phase });
    for (let at = phase.startMs + options.sampleMs; at < phase.endMs; at += options.sampleMs) list.push({ at, order: 0, kind: 'sample', phase: phase.name });
    list.push({ at: phase.endMs, order: 0, kind: 'sample', phase: phase.name });
    list.push({ at: phase.endMs, order: 1, kind: 'end', phase });
    if (phase.fault === 'kills') {
      for (let at = phase.startMs + options.killEveryMs / 2; at < phase.endMs; at += options.killEveryMs) list.push({ at, order: 3, kind: 'kill' });
    }
  }
  return list.sort((a, b) => a.at - b.at || a.order - b.order);
}

export async function runTimeline(options: TimelineOptions): Promise<TimelineRecord> {
  const record: TimelineRecord = { horizon: null, kills: [] };
  const seconds = (): number => Math.round((Date.now() - options.t0) / 100) / 10;
  let held: HeldHorizon | null = null;
  try {
    for (const action of actions(options)) {
      const wait = options.t0 + action.at - Date.now();
      if (wait > 0) await sleep(wait, undefined, { signal: options.signal });
      options.signal.throwIfAborted();
      if (action.kind === 'sample') {
        await options.sampler.take(action.phase);
      } else if (action.kind === 'start') {
        const { phase } = action;
        for (const side of options.sides) {
          side.producer.setRate(options.rate * phase.rateFactor);
          side.ledger.setPhase(phase.name);
        }
        options.log(`phase ${phase.name}: ${options.rate * phase.rateFactor} events/s offered per side` + (phase.skipped === null ? '' : ` (${phase.skipped})`));
        if (phase.fault === 'horizon' && options.holdHorizon !== null) {
          held = await options.holdHorizon();
          record.horizon = { xid: held.xid, heldFromS: seconds(), releasedAtS: Number.NaN };
          options.log(`  idle in transaction: txid ${held.xid} holds the xmin horizon`);
        }
      } else if (action.kind === 'end') {
        if (held !== null) {
          await held.release();
          held = null;
          if (record.horizon !== null) record.horizon.releasedAtS = seconds();
          options.log('  the idle transaction rolled back: the horizon may move again');
        }
      } else {
        for (const side of options.sides) {
          const victim = side.fleet.killOne();
          if (victim === null) continue;
          record.kills.push({ t: seconds(), side: side.key, child: victim.name });
          options.log(`  SIGKILL ${victim.name} (pid ${victim.pid})`);
        }
      }
    }
  } finally {
    await held?.release();
  }
  return record;
}

/**
 * The load stops; samples go on (phase 'drain') until every side has
 * delivered the reply of every event it stored, or `limitMs` passed.
 * Returns whether everything was delivered.
 */
export async function drain(options: { sides: readonly Side[]; sampler: Sampler; sampleMs: number; limitMs: number; signal: AbortSignal; log(line: string): void }): Promise<boolean> {
  await Promise.all(options.sides.map((side) => side.producer.stop()));
  const deadline = Date.now() + options.limitMs;
  const backlog = (): number => options.sides.reduce((sum, side) => sum + side.ledger.storedCount - side.ledger.deliveredCount, 0);
  options.log(`drain: the load stopped; ${backlog()} replies still to deliver (giving it up to ${Math.round(options.limitMs / 1000)} s)`);
  let lastSample = Date.now();
  while (backlog() > 0 && Date.now() < deadline) {
    await sleep(250, undefined, { signal: options.signal });
    if (Date.now() - lastSample >= options.sampleMs) {
      await options.sampler.take('drain');
      lastSample = Date.now();
    }
  }
  // Deliveries repeated after the last one (at-least-once) may still arrive: a short grace, then the final sample.
  await sleep(1_000, undefined, { signal: options.signal });
  await options.sampler.take('drain');
  return backlog() === 0;
}
