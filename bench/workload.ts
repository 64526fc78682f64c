/**
 * The work both implementations run, step by step. Vigil runs each step in
 * this process (sqlite-engine.ts); the Python reference runs the same step
 * in a child process (python-reference.ts driving python/reference_bench.py).
 * Every step builds its own fresh inbox unless it says otherwise, and times
 * only the operation it is named after; setup is never in the figure.
 */

export interface Timed {
  seconds: number;
}

export interface IngestResult extends Timed {
  events: number;
}

export interface CycleResult extends Timed {
  runs: number;
  events: number;
}

export interface PassResult extends Timed {
  fired: number;
}

export interface DispatchResult extends Timed {
  sent: number;
}

export interface CycleParams {
  /** Timed runs. */
  runs: number;
  /** Events ingested (untimed) before each run, all claimed by it. */
  perRun: number;
  /** Events already done before the first timed run (untimed setup). */
  preloadDone: number;
}

export interface SchedulerParams {
  name: string;
  /** Interval timers in the inbox. */
  total: number;
  /** How many of them are due at each pass (the rest are due far later). */
  due: number;
}

/** One implementation under test. */
export interface BenchSide {
  readonly label: string;
  /** One event per call, `n` calls. */
  ingest(n: number): Promise<IngestResult>;
  /**
   * One event per call, `inFlight` calls outstanding at a time: concurrent
   * deliveries, as a webhook server sees them. Absent on a side that has no
   * concurrency (the reference takes them one transaction at a time).
   */
  ingestConcurrent?(n: number, inFlight: number): Promise<IngestResult>;
  /** `n` events, `batch` per transaction, same dedupe rule. */
  ingestMany(n: number, batch: number): Promise<IngestResult>;
  /** Full run cycles: acquire, claimBatch, finish with one message. */
  cycle(params: CycleParams): Promise<CycleResult>;
  /** Builds a named timer inbox (kept until dropScheduler). */
  setupScheduler(params: SchedulerParams): Promise<Timed>;
  /** One pass at the next occurrence: fires exactly `due` timers. */
  schedulerPass(name: string): Promise<PassResult>;
  /** `passes` passes at an instant when nothing is due; seconds of each. */
  idlePasses(name: string, passes: number): Promise<number[]>;
  dropScheduler(name: string): Promise<void>;
  /** One dispatch of `messages` held messages (queued untimed by one finish). */
  dispatch(messages: number): Promise<DispatchResult>;
  /** One held message in each of `inboxes` inboxes (queued untimed), each dispatched: a dispatcher's pass. */
  dispatchSpread(inboxes: number): Promise<DispatchResult>;
  close(): Promise<void>;
}

/** The event every step ingests; the same shape on both sides. */
export function payload(i: number): { text: string; n: number } {
  return { text: `event ${i}`, n: i };
}

/** Sizes and repetitions of one run of `npm run bench`. */
export interface Plan {
  /** Repetitions of the ingest groups (the other groups have their own below); the median is reported. */
  ingestReps: number;
  ingestEvents: number;
  ingestManyEvents: number;
  ingestManyBatch: number;
  cycleRuns: number;
  /** Repetitions of the run-cycle group (the other groups: `reps`). */
  cycleReps: number;
  doneBefore: number;
  batchedCycles: { perRun: number; runs: number }[];
  schedulerTimers: number;
  schedulerDue: number;
  schedulerPasses: number;
  idlePasses: number;
  dispatchMessages: number;
  /** Repetitions of the dispatch of dispatchMessages held messages (a second or so each). */
  dispatchReps: number;
  /** Inboxes of one held message each, for the dispatcher's pass. */
  dispatchInboxes: number;
  /** Repetitions of the dispatcher's pass (its inbox files set up each time: ~26 s). */
  dispatchSpreadReps: number;
}

export const FULL_PLAN: Plan = {
  // The ingest groups. A repetition of single-event ingest is 1,000 commits, about 0.17 s per side, so one slow
  // spell of the disk moves its ratio to the floor: per repetition it ranged 0.7x-1.5x. With 5 repetitions (and
  // the floor in its own turn, suite.ts) twelve runs' medians read 0.72x-1.13x on the same code, with 15 five
  // read 0.95x-1.10x. Fifteen cost about 8 s more.
  ingestReps: 15,
  ingestEvents: 1000,
  ingestManyEvents: 10_000,
  ingestManyBatch: 100,
  cycleRuns: 300,
  // A repetition is 300 runs, about a third of a second for Vigil, so one burst of the machine moves its ratio:
  // with 5, the one-event cycle after 10,000 done read 2.91x against the reference in a full run and 2.99x-3.19x
  // in five diagnostic runs of unchanged code. Nine cost about 12 s more.
  cycleReps: 9,
  doneBefore: 10_000,
  batchedCycles: [
    { perRun: 10, runs: 100 },
    { perRun: 100, runs: 30 },
  ],
  schedulerTimers: 100_000,
  schedulerDue: 1_000,
  // A pass is one durable commit of 8-30 ms, so its median follows the disk's fsync timing: with 5 passes
  // Vigil against its floor came out 0.70x-1.01x across full runs of the same code, with 25 it was 0.85x-0.97x.
  // The passes cost about a second.
  schedulerPasses: 25,
  idlePasses: 200,
  dispatchMessages: 10_000,
  // A dispatch of 10,000 is one pass of two commits (one durable), so its median follows the disk's fsync
  // timing: with 3 repetitions it moved 0.62x-1.03x against its floor on unchanged code, with 5 it read
  // 0.60x-0.62x, and single repetitions ran 16-67 ms. A repetition costs about a second, so it gets 15.
  dispatchReps: 15,
  dispatchInboxes: 1_000,
  // Each repetition sets up 1,000 inbox files per side (~26 s); a pass is 1,000 commits, so steadier.
  dispatchSpreadReps: 5,
};

/** `npm run bench -- --quick`: a smoke run of every step in seconds (figures are not meaningful). */
export const QUICK_PLAN: Plan = {
  ingestReps: 1,
  ingestEvents: 50,
  ingestManyEvents: 500,
  ingestManyBatch: 100,
  cycleRuns: 20,
  cycleReps: 1,
  doneBefore: 1_000,
  batchedCycles: [
    { perRun: 10, runs: 5 },
    { perRun: 100, runs: 3 },
  ],
  schedulerTimers: 5_000,
  schedulerDue: 100,
  schedulerPasses: 2,
  idlePasses: 10,
  dispatchMessages: 500,
  dispatchReps: 1,
  dispatchInboxes: 50,
  dispatchSpreadReps: 1,
};
