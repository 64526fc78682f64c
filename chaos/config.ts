/**
 * What one chaos run does: how many events, workers and kills, and the
 * store options it runs the real runtime with. Two presets: `short` (what
 * `npm test` runs on each store, well under a minute) and `long` (what
 * `npm run chaos` runs by default; its figures go in RELIABILITY.md).
 */
export type StoreKind = 'sqlite' | 'postgres';

export interface ChaosConfig {
  store: StoreKind;
  /** PostgreSQL: a server or database URL (a fresh schema is made in it). */
  url?: string;
  /** PostgreSQL: the schema to use (default: a fresh one, dropped at the end). */
  schema?: string;
  /** Events the feeder ingests (unique keys; duplicates come on top). */
  events: number;
  inboxes: number;
  /** Worker processes running at once (each a WorkerPool and a Dispatcher). */
  workers: number;
  /** Inboxes one worker runs at once. */
  concurrency: number;
  /** SIGKILLs to deliver: by the parent at a random moment, or armed at a named point inside a worker. */
  kills: number;
  /** How long events are fed and workers killed; then the harness drains. */
  windowMs: number;
  /** How long the drain may take before the checks run anyway (and fail). */
  drainMs: number;
  leaseTtlMs: number;
  maxAttempts: number;
  /** Events that SIGKILL their worker every time they run. */
  poison: number;
  /** Events whose run throws every time. */
  throwing: number;
  /** Events whose first run throws. */
  flaky: number;
  /** Events whose first run stalls its whole process past the lease TTL. */
  slow: number;
  /** Events whose run asks for an approval. */
  asks: number;
  /** Interval timers (missed: 'each'), one per inbox from the first. */
  intervalTimers: number;
  intervalMs: number;
  oneOffTimers: number;
  /** Share of events delivered twice (in the same call, or again later). */
  duplicateRate: number;
  /** Dispatch with { atMostOnce: true }: no message may reach the channel twice. */
  atMostOnce: boolean;
  seed: number;
  /** Keep the SQLite directory / journals even when every invariant held. */
  keep?: boolean;
  /** Progress lines (to stderr). */
  verbose?: boolean;
}

export type Preset = 'short' | 'long';

const COMMON = {
  leaseTtlMs: 2_000,
  maxAttempts: 4,
  intervalMs: 1_000,
  duplicateRate: 0.2,
  atMostOnce: false,
  seed: 20261130,
} as const;

export const PRESETS: Record<Preset, Omit<ChaosConfig, 'store'>> = {
  short: {
    ...COMMON,
    events: 400,
    inboxes: 6,
    workers: 3,
    concurrency: 4,
    kills: 10,
    windowMs: 20_000,
    drainMs: 60_000,
    // One: each poison crash costs a worker restart (~2 s of CPU), and the machine has two cores.
    poison: 1,
    throwing: 4,
    flaky: 8,
    slow: 2,
    asks: 8,
    intervalTimers: 2,
    oneOffTimers: 4,
  },
  long: {
    ...COMMON,
    events: 50_000,
    inboxes: 40,
    workers: 4,
    concurrency: 8,
    kills: 500,
    windowMs: 600_000,
    // Under 300 kills PostgreSQL falls behind (each killed batch is retried one event at a time, R4):
    // on a busy 2-core machine the backlog took more than 3 minutes to drain.
    drainMs: 600_000,
    poison: 20,
    throwing: 100,
    flaky: 500,
    slow: 20,
    asks: 400,
    intervalTimers: 10,
    oneOffTimers: 40,
  },
};

/** The most events one inbox may hold: the checks read each inbox in one `events()` call. */
export const MAX_EVENTS_PER_INBOX = 9_000;
