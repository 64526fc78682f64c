/**
 * Runs the plan on every side and returns each figure's repetitions per side.
 *
 * Repetitions are interleaved: one repetition runs every step of a group
 * (e.g. the four run-cycle variants) on every side, the sides' order flipping
 * each time. Samples with the same index were therefore taken moments apart,
 * and ratios are taken per repetition (paired) before the median, so a burst
 * of load from other processes falls on both terms of a ratio alike. The
 * floors of the ingest groups take a turn of their own among the sides
 * (FloorStep), so they too are sometimes first and sometimes last; the other
 * families' floors still run once after the sides.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { heldSelectUpdateFloor, spreadDispatchFloor } from './dispatch-floor.js';
import { cycleFloor, ingestManyFloor, SchedulerFloor } from './floors.js';
import { quietDisk } from './quiet-disk.js';
import { elapsedSeconds, median, startTimer } from './timing.js';
import { payload, type BenchSide, type IngestResult, type Plan } from './workload.js';

export type Unit = 'events/s' | 'runs/s' | 'ms';

export interface Figure {
  key: string;
  label: string;
  unit: Unit;
  /** Repetitions per side label, in run order. */
  samples: Map<string, number[]>;
}

export class Results {
  readonly figures: Figure[] = [];

  add(key: string, label: string, unit: Unit, side: string, value: number): void {
    let figure = this.figures.find((f) => f.key === key);
    if (figure === undefined) {
      figure = { key, label, unit, samples: new Map() };
      this.figures.push(figure);
    }
    const list = figure.samples.get(side) ?? [];
    list.push(value);
    figure.samples.set(side, list);
  }

  samples(key: string, side: string): number[] | null {
    const list = this.figures.find((f) => f.key === key)?.samples.get(side);
    return list === undefined || list.length === 0 ? null : list;
  }

  /** The median of a figure for one side, or null if that side did not run it. */
  median(key: string, side: string): number | null {
    const list = this.samples(key, side);
    return list === null ? null : median(list);
  }

  /**
   * How many times as good figure `a` of side `sa` is as figure `b` of side
   * `sb`: per repetition when both have the same number (paired), else the
   * ratio of medians. Rates divide a / b; times (ms) divide b / a.
   */
  ratio(a: string, sa: string, b: string, sb: string): number | null {
    const x = this.samples(a, sa);
    const y = this.samples(b, sb);
    if (x === null || y === null) return null;
    const unit = this.figures.find((f) => f.key === a)?.unit;
    const better = (p: number, q: number): number => (unit === 'ms' ? q / p : p / q);
    if (x.length === y.length) return median(x.map((value, i) => better(value, y[i] as number)));
    return better(median(x), median(y));
  }
}

type Log = (line: string) => void;

/** Concurrent single-event deliveries, as a webhook server at 64 connections sees them. */
export const CONCURRENT_DELIVERIES = 64;

export const FAMILIES = ['ingest', 'cycle', 'scheduler', 'dispatch'] as const;
export type Family = (typeof FAMILIES)[number];

/** A step run once per side, in the repetition's order. */
type SideStep = (side: BenchSide) => Promise<void>;
/**
 * A step and its floor, which takes a turn of its own as if it were one more
 * side: [A, B, floor], then [floor, B, A]. Run once after the sides instead,
 * the floor never follows what the previous step left on the disk, while the
 * side that goes first always does. So it was for single-event ingest, which
 * followed ingestMany's 10,000-event steps: over three `--only ingest` runs,
 * Vigil's per-repetition ratio to the floor had a median of 0.83x when it
 * went first and 1.02x when it went second, and the runs' medians (five
 * repetitions) read 0.73x-1.03x on the same code.
 */
interface FloorStep {
  side: SideStep;
  floor: () => Promise<void> | void;
}
type Step = SideStep | FloorStep;

const n = (value: number): string => value.toLocaleString('en-US');

/** The label of the floor's figures: what no code that commits each event on its own can beat. */
export const FLOOR = 'bare commits';

/** `count` one-row inserts, each its own transaction, into a fresh WAL file at synchronous FULL. */
function bareCommits(scratch: string, count: number): IngestResult {
  const db = new Database(join(mkdtempSync(join(scratch, 'floor-')), 'floor.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const start = startTimer();
    for (let i = 0; i < count; i++) insert.run(JSON.stringify(payload(i)));
    return { seconds: elapsedSeconds(start), events: count };
  } finally {
    db.close();
  }
}

export async function runSuite(
  plan: Plan,
  sides: BenchSide[],
  log: Log,
  only: ReadonlySet<Family> = new Set(FAMILIES),
  scratch: string = tmpdir(),
): Promise<Results> {
  const results = new Results();
  /** Each repetition runs every step on every side (and a FloorStep's floor as one more); the order flips every repetition. */
  const interleave = async (what: string, reps: number, steps: Step[]): Promise<void> => {
    await quietDisk(log);
    for (let rep = 0; rep < reps; rep++) {
      if (what !== '') log(`${what}: repetition ${rep + 1} of ${reps}`);
      for (const step of steps) {
        const turns = typeof step === 'function' ? sides.map((side) => () => step(side)) : [...sides.map((side) => () => step.side(side)), step.floor];
        for (const turn of rep % 2 === 0 ? turns : turns.reverse()) await turn();
      }
    }
  };

  log('warm-up (not measured)');
  for (const side of sides) {
    await side.ingest(100);
    await side.ingestMany(1000, 100);
    await side.cycle({ runs: 20, perRun: 1, preloadDone: 0 });
    if (only.has('dispatch')) {
      // Each repetition times one dispatch per side, so without this the first (of three) would time
      // Vigil's dispatch code before the JIT has compiled it and the heap has grown to a 10,000-row read.
      await side.dispatch(plan.dispatchMessages);
      await side.dispatchSpread(Math.min(plan.dispatchInboxes, 50));
    }
  }

  if (only.has('ingest')) {
    // Single events and batches in groups of their own: a batch step writes ten times as much, and
    // whichever single-event step followed it would time its commits against that writeback.
    await interleave('single-event ingest', plan.ingestReps, [
      {
        side: async (side) => {
          const r = await side.ingest(plan.ingestEvents);
          results.add('ingest', `ingest, one event per call (${n(plan.ingestEvents)} events)`, 'events/s', side.label, r.events / r.seconds);
        },
        // Bare one-row commits on a fresh file.
        floor: () => {
          const r = bareCommits(scratch, plan.ingestEvents);
          results.add('ingestFloor', `bare one-row commits (better-sqlite3, WAL, synchronous=FULL; ${n(plan.ingestEvents)})`, 'events/s', FLOOR, r.events / r.seconds);
        },
      },
      async (side) => {
        if (side.ingestConcurrent === undefined) return;
        const r = await side.ingestConcurrent(plan.ingestEvents, CONCURRENT_DELIVERIES);
        const label = `ingest, one event per call, ${CONCURRENT_DELIVERIES} calls in flight (${n(plan.ingestEvents)} events)`;
        results.add('ingestConcurrent', label, 'events/s', side.label, r.events / r.seconds);
      },
    ]);
    await interleave('ingestMany', plan.ingestReps, [
      {
        side: async (side) => {
          const r = await side.ingestMany(plan.ingestManyEvents, plan.ingestManyBatch);
          const label = `ingestMany, ${plan.ingestManyBatch} events per call and transaction (${n(plan.ingestManyEvents)} events)`;
          results.add('ingestMany', label, 'events/s', side.label, r.events / r.seconds);
        },
        // ingestMany's floor (floors.ts): the same rows and schema, bare multi-row INSERTs.
        floor: async () => {
          const r = await ingestManyFloor(scratch, plan.ingestManyEvents, plan.ingestManyBatch);
          const label = `bare multi-row INSERTs of ingestMany's rows into an inbox file (better-sqlite3, WAL, synchronous=FULL; ${plan.ingestManyBatch} per transaction)`;
          results.add('ingestManyFloor', label, 'events/s', FLOOR, r.events / r.seconds);
        },
      },
    ]);
  }

  if (only.has('cycle')) {
    const cycles = [
      { key: 'cycle1', label: `run cycle, 1 event per run, empty inbox (${plan.cycleRuns} runs)`, perRun: 1, runs: plan.cycleRuns, preloadDone: 0 },
      {
        key: 'cycle1done',
        label: `run cycle, 1 event per run, ${n(plan.doneBefore)} events already done (${plan.cycleRuns} runs)`,
        perRun: 1,
        runs: plan.cycleRuns,
        preloadDone: plan.doneBefore,
      },
      ...plan.batchedCycles.map(({ perRun, runs }) => ({
        key: `cycle${perRun}`,
        label: `run cycle, ${perRun} events per run, empty inbox (${runs} runs)`,
        perRun,
        runs,
        preloadDone: 0,
      })),
    ];
    await interleave(
      'run cycles',
      plan.cycleReps,
      [
        ...cycles.map((c) => async (side: BenchSide) => {
          const r = await side.cycle({ runs: c.runs, perRun: c.perRun, preloadDone: c.preloadDone });
          results.add(c.key, c.label, 'runs/s', side.label, r.runs / r.seconds);
          if (c.perRun > 1) results.add(`${c.key}events`, `${c.label}, per event`, 'events/s', side.label, r.events / r.seconds);
        }),
        async (side: BenchSide) => {
          // The floor under the one-event cycle after the done events (floors.ts), once per repetition.
          if (side !== sides[0]) return;
          const r = await cycleFloor(scratch, plan.cycleRuns, plan.doneBefore);
          const label = `floor: the one-event cycle's row changes bare on Vigil's schema, with its commits (${n(plan.doneBefore)} done; ${plan.cycleRuns} runs)`;
          results.add('cycle1doneFloor', label, 'runs/s', FLOOR, r.runs / r.seconds);
        },
      ],
    );
  }

  if (only.has('scheduler')) await schedulerFamily(plan, sides, results, log, interleave, scratch);

  if (only.has('dispatch')) {
    await interleave('dispatch', plan.dispatchReps, [
      async (side) => {
        const r = await side.dispatch(plan.dispatchMessages);
        results.add('dispatch', `dispatch of ${n(plan.dispatchMessages)} held messages (one send)`, 'ms', side.label, r.seconds * 1000);
      },
      // The floor (dispatch-floor.ts), once per repetition among the sides' turns.
      async (side) => {
        if (side !== sides[0]) return;
        const label = `floor: the SELECT and UPDATE of ${n(plan.dispatchMessages)} held rows in one durable commit (better-sqlite3, Vigil's schema)`;
        results.add('dispatchFloor', label, 'ms', FLOOR, heldSelectUpdateFloor(scratch, plan.dispatchMessages));
      },
    ]);
    await interleave('dispatcher pass', plan.dispatchSpreadReps, [
      async (side) => {
        const r = await side.dispatchSpread(plan.dispatchInboxes);
        const label = `dispatch of one held message in each of ${n(plan.dispatchInboxes)} inboxes, per message`;
        results.add('dispatchSpread', label, 'ms', side.label, (r.seconds * 1000) / r.sent);
      },
      async (side) => {
        if (side !== sides[0]) return;
        const label = `floor: open, a commit without a flush, a durable commit, close, for each of ${n(plan.dispatchInboxes)} files (better-sqlite3, Vigil's schema), per message`;
        results.add('dispatchSpreadFloor', label, 'ms', FLOOR, spreadDispatchFloor(scratch, plan.dispatchInboxes));
      },
    ]);
  }
  return results;
}

async function schedulerFamily(
  plan: Plan,
  sides: BenchSide[],
  results: Results,
  log: Log,
  interleave: (what: string, reps: number, steps: Step[]) => Promise<void>,
  scratch: string,
): Promise<void> {
  const big = { name: 'big', total: plan.schedulerTimers, due: plan.schedulerDue };
  const small = { name: 'small', total: plan.schedulerDue, due: plan.schedulerDue };
  const floor = await SchedulerFloor.create(scratch, small.total, small.due);
  for (const side of sides) {
    const setup = await side.setupScheduler(big);
    await side.setupScheduler(small);
    log(`${side.label}: built ${n(plan.schedulerTimers)} timers in ${setup.seconds.toFixed(1)} s (setup, not measured)`);
  }
  await interleave('scheduler passes', plan.schedulerPasses, [
    async (side) => {
      const r = await side.schedulerPass('big');
      results.add('schedBig', `scheduler pass, ${n(plan.schedulerDue)} of ${n(plan.schedulerTimers)} timers due`, 'ms', side.label, r.seconds * 1000);
    },
    async (side) => {
      const r = await side.schedulerPass('small');
      results.add('schedSmall', `scheduler pass, ${n(plan.schedulerDue)} of ${n(plan.schedulerDue)} timers due`, 'ms', side.label, r.seconds * 1000);
    },
    async (side) => {
      // The small pass's floor (floors.ts), once per pass: its SQL on the same schema, bare.
      if (side !== sides[0]) return;
      const r = floor.pass();
      if (r.fired !== small.due) throw new Error(`floor pass fired ${r.fired}, expected ${small.due}`);
      const label = `bare SQL of the scheduler pass, ${n(plan.schedulerDue)} of ${n(plan.schedulerDue)} due, on an inbox file (better-sqlite3, WAL, synchronous=FULL)`;
      results.add('schedSmallFloor', label, 'ms', FLOOR, r.seconds * 1000);
    },
  ]);
  await floor.close();
  // Idle passes come in short alternating bursts too, but are summarised by
  // their medians: there are many, and no single pair means much.
  const bursts = 10;
  const perBurst = Math.max(1, Math.ceil(plan.idlePasses / bursts));
  log(`idle scheduler passes (${perBurst * bursts} per side and size)`);
  await interleave('', bursts, [
    async (side) => {
      for (const seconds of await side.idlePasses('big', perBurst)) {
        results.add('idleBig', `idle scheduler pass over ${n(plan.schedulerTimers)} timers (none due)`, 'ms', side.label, seconds * 1000);
      }
    },
    async (side) => {
      for (const seconds of await side.idlePasses('small', perBurst)) {
        results.add('idleSmall', `idle scheduler pass over ${n(plan.schedulerDue)} timers (none due)`, 'ms', side.label, seconds * 1000);
      }
    },
  ]);
  for (const side of sides) {
    await side.dropScheduler('big');
    await side.dropScheduler('small');
  }
}
