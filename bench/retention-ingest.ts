/**
 * Pruning while ingesting (issue 21): webhook deliveries at full speed into
 * inboxes that also hold a backlog of done events past their retention,
 * with a Pruner (src/runtime/pruner.ts, its defaults: batches of 1,000,
 * a pause of nineteen times each batch's time) working that backlog off in the
 * same store and process, against the same ingest with no Pruner.
 *
 * Two ways deliveries arrive: 64 single `ingest` calls in flight (a webhook
 * server under a burst; SQLite group-commits the calls of one inbox that
 * arrive together) and 8 callers of `ingestMany` with 100 each (a relay
 * forwarding in batches). Windows of fixed wall time, round robin over the
 * inboxes; each repetition runs every variant with and without the Pruner,
 * the order flipping from one repetition to the next, and the figure is the
 * median of the per-repetition ratios (suite.ts says why), so load from
 * other processes on the shared machine falls on both terms alike.
 *
 * The store's clock is a fake one set two days after the backlog finished,
 * so every backlog event is past its one-day retention from the start; the
 * deliveries arrive at that time too.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { createFakeClock, type FakeClock, type Store, type StoreOptions } from '../src/index.js';
import { Pruner } from '../src/runtime/pruner.js';
import { delivery } from './retention-payload.js';
import { DAY } from './retention-size.js';

export interface IngestPlan {
  inboxes: number;
  /** Done events past retention in each inbox before the first window. */
  backlogPerInbox: number;
  /** After the Pruner starts or stops, before the window opens. */
  settleMs: number;
  windowMs: number;
  repetitions: number;
  inFlight: number;
  manyCallers: number;
  manyBatch: number;
}

// The backlog outlasts every window with the Pruner: on a quiet machine one prunes ~35,000 rows in its 8 s,
// and ten such windows (two variants, five repetitions) need ~350,000; 120,000 ran out by the third repetition.
export const FULL_INGEST_PLAN: IngestPlan = { inboxes: 8, backlogPerInbox: 60_000, settleMs: 1_500, windowMs: 8_000, repetitions: 5, inFlight: 64, manyCallers: 8, manyBatch: 100 };
export const QUICK_INGEST_PLAN: IngestPlan = { inboxes: 4, backlogPerInbox: 1_500, settleMs: 300, windowMs: 1_000, repetitions: 2, inFlight: 64, manyCallers: 8, manyBatch: 100 };

export type Variant = 'single' | 'many';

export interface IngestWindow {
  repetition: number;
  variant: Variant;
  pruning: boolean;
  events: number;
  seconds: number;
  perS: number;
  /** With the Pruner: rows it removed in the window, and the share of the window its prune calls took. */
  pruned: number;
  pruneDuty: number;
}

export interface IngestRun {
  store: string;
  plan: IngestPlan;
  windows: IngestWindow[];
  /** Backlog events left unpruned after the last window (none left would mean the Pruner ran out of work). */
  backlogLeft: number;
  seedSeconds: number;
}

/** Where the store lives: opened once to seed (with `seed` options) and once to measure. */
export interface IngestPlace {
  label: string;
  open(options: StoreOptions): Promise<Store>;
  /** Options that make the untimed seeding cheaper on this store (SQLite: synchronous NORMAL). */
  seedOptions: StoreOptions;
}

const T0 = Date.UTC(2026, 0, 1);
const HOLDER = 'bench-seed';
/** Key numbers of the deliveries offered in the windows, far above the backlog's. */
const LIVE_KEYS_FROM = 100_000_000;

const inboxIds = (plan: IngestPlan): string[] => Array.from({ length: plan.inboxes }, (_, i) => `user-${String(i).padStart(2, '0')}`);

/** The backlog: every inbox's events stored, claimed and finished at T0 (untimed; the inboxes side by side). */
async function seed(place: IngestPlace, plan: IngestPlan, clock: FakeClock): Promise<void> {
  const store = await place.open({ ...place.seedOptions, clock: clock.now, batchLimit: 1_000 });
  try {
    await Promise.all(
      inboxIds(plan).map(async (id, i) => {
        const inbox = store.inbox(id);
        const first = i * plan.backlogPerInbox;
        for (let offset = 0; offset < plan.backlogPerInbox; offset += 1_000) {
          const n = Math.min(1_000, plan.backlogPerInbox - offset);
          await inbox.ingestMany(Array.from({ length: n }, (_, k) => delivery(first + offset + k, clock.now())));
        }
        const gen = await inbox.acquire(HOLDER);
        if (gen === null) throw new Error(`seed: no lease on ${id}`);
        for (let done = 0; done < plan.backlogPerInbox; ) {
          const batch = await inbox.claimBatch(HOLDER, gen);
          if (batch.length === 0) throw new Error(`seed: ${id} ran out of events at ${done}`);
          await inbox.finish(HOLDER, gen, batch.map((e) => e.id), {});
          done += batch.length;
        }
        await inbox.release(HOLDER, gen);
      }),
    );
  } finally {
    await store.close();
  }
}

/** The store as the Pruner sees it, timing each prune call: how much of a window pruning took. */
function timedPrunes(store: Store, busy: { ms: number }): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'prune') return Reflect.get(target, property, receiver) as unknown;
      return async (options?: { limit?: number }) => {
        const started = performance.now();
        try {
          return await target.prune(options);
        } finally {
          busy.ms += performance.now() - started;
        }
      };
    },
  });
}

/**
 * Deliveries at full speed until stopped: `callers` loops, each one call in
 * flight, round robin over the inboxes. It runs through a whole repetition;
 * the windows only read its count, so no window pays for the callers
 * starting or draining.
 */
class Load {
  events = 0;
  private stopping = false;
  private readonly running: Promise<void>;

  constructor(store: Store, ids: string[], variant: Variant, plan: IngestPlan, now: number, nextKey: () => number) {
    let turn = 0;
    const callers = variant === 'single' ? plan.inFlight : plan.manyCallers;
    this.running = Promise.all(
      Array.from({ length: callers }, async () => {
        while (!this.stopping) {
          const inbox = store.inbox(ids[turn++ % ids.length]!);
          if (variant === 'single') {
            if (!(await inbox.ingest(delivery(nextKey(), now)))) throw new Error('a new delivery was refused');
            this.events += 1;
          } else {
            const stored = await inbox.ingestMany(Array.from({ length: plan.manyBatch }, () => delivery(nextKey(), now)));
            if (stored.some((s) => !s)) throw new Error('a new delivery was refused');
            this.events += stored.length;
            // SQLite's ingestMany resolves in the same turn of the event loop: without a turn
            // here the callers would starve every timer (the Pruner's, the window's) for good.
            await setImmediate();
          }
        }
      }),
    ).then(() => undefined);
    // A failed call ends the run at stop(); until then the other callers go on.
    this.running.catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }
}

export async function runIngestUnderPruning(place: IngestPlace, plan: IngestPlan, log: (line: string) => void): Promise<IngestRun> {
  const clock = createFakeClock(T0);
  const seedStarted = performance.now();
  await seed(place, plan, clock);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`retention ingest (${place.label}): seeded ${(plan.inboxes * plan.backlogPerInbox).toLocaleString('en-US')} done events in ${seedSeconds.toFixed(0)} s`);
  clock.set(T0 + 2 * DAY);

  const store = await place.open({ clock: clock.now, retention: { doneEventsMs: DAY } });
  const windows: IngestWindow[] = [];
  let prunedEvents = 0;
  let pruned = 0;
  store.events.on('store:pruned', (e) => {
    prunedEvents += e.events;
    pruned += e.events + e.messages + e.approvals + e.actions;
  });
  let key = LIVE_KEYS_FROM;
  const nextKey = (): number => key++;
  const ids = inboxIds(plan);
  try {
    // Warm, unmeasured: files open, statements prepared, the pool's connections made.
    const warm = new Load(store, ids, 'single', plan, clock.now(), nextKey);
    await sleep(2 * plan.settleMs);
    await warm.stop();
    for (let repetition = 0; repetition < plan.repetitions; repetition++) {
      const order = repetition % 2 === 0 ? [true, false] : [false, true];
      for (const variant of ['single', 'many'] as const) {
        const load = new Load(store, ids, variant, plan, clock.now(), nextKey);
        try {
          for (const pruning of order) {
            const busy = { ms: 0 };
            const pruner = pruning ? new Pruner({ store: timedPrunes(store, busy) }) : null;
            pruner?.start();
            try {
              // The Pruner is in its rhythm (a batch, then nineteen times as long at rest) before the window opens.
              await sleep(plan.settleMs);
              const before = { events: load.events, pruned, busyMs: busy.ms, at: performance.now() };
              await sleep(plan.windowMs);
              const seconds = (performance.now() - before.at) / 1000;
              const events = load.events - before.events;
              const window: IngestWindow = {
                repetition,
                variant,
                pruning,
                events,
                seconds,
                perS: events / seconds,
                pruned: pruned - before.pruned,
                pruneDuty: (busy.ms - before.busyMs) / 1000 / seconds,
              };
              windows.push(window);
              log(
                `retention ingest (${place.label}) rep ${repetition + 1}/${plan.repetitions} ${variant} ${pruning ? 'with the Pruner' : 'no pruning'}: ` +
                  `${Math.round(window.perS).toLocaleString('en-US')} events/s` +
                  (pruning ? `, pruned ${window.pruned.toLocaleString('en-US')} (prune calls ${(window.pruneDuty * 100).toFixed(1)}% of the window)` : ''),
              );
            } finally {
              await pruner?.stop();
            }
          }
        } finally {
          await load.stop();
        }
      }
    }
  } finally {
    await store.close();
  }
  return { store: place.label, plan, windows, backlogLeft: plan.inboxes * plan.backlogPerInbox - prunedEvents, seedSeconds };
}
