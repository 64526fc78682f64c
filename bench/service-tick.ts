/**
 * Idle-to-work tick: a store with many inboxes, of which a few (10) have a
 * pending event each, and a worker pool that is idle (its one timer armed
 * for tomorrow's digest timers, no hint heard). Timed: pool.wake() →
 * readyInboxes → 10 turns of a trivial agent (acquire, claim, run, finish,
 * release) → the pool running nothing. The same on a store of 100 inboxes
 * and one of 10,000, alternating, so the ratio shows what the idle inboxes
 * cost. Also timed alone: the readyInboxes (and nextWake) calls of a pass.
 *
 * The events are ingested through a second store object on the same
 * directory, as another `vigil serve` process or `vigil ingest` would: the
 * pool hears no hint and stays idle until woken.
 *
 * Setup (untimed): one idle inbox is made through the API (an event run to
 * done, a daily digest timer due in a day); the others are copies of its file,
 * each listed in the ready index with the template's own entry, which is what
 * store.rebuildReadyIndex() would write (checked on one inbox) in one
 * transaction instead of one per inbox: building 10,000 inboxes through the
 * API costs ~15 ms each here (file creation and checkpoint fsyncs), minutes
 * in all.
 */
import { constants, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { defineAgent, openStore, RuntimeEvents, WorkerPool, type Store } from '../src/index.js';
import { READY_INDEX_FILE } from '../src/store/sqlite/ready-index.js';
import { sqliteBackendOf } from '../src/store/sqlite/sqlite-store.js';
import { median } from './timing.js';

export interface TickPlan {
  /** Inboxes in the two stores compared. */
  small: number;
  big: number;
  /** Inboxes with a pending event at each tick. */
  working: number;
  reps: number;
  /** readyInboxes / nextWake calls timed per repetition. */
  queryCalls: number;
}

export interface TickSample {
  /** pool.wake() → every turn over (leases released), ms. */
  tickMs: number;
  /** pool.wake() → the first run:started, ms: finding the work. */
  firstRunMs: number;
  /** pool.wake() → the last run:finished, ms. */
  runsMs: number;
  /** One readyInboxes({ limit: working }) with `working` inboxes ready, µs (median of queryCalls). */
  readyUs: number;
  /** One nextWake(), µs (median of queryCalls). */
  nextWakeUs: number;
}

export interface TickFigures {
  plan: TickPlan;
  setupSeconds: number;
  /** Per repetition, in order. */
  small: TickSample[];
  big: TickSample[];
  /** Median of the per-repetition ratios big ÷ small (1.0 = the idle inboxes cost nothing). */
  tickRatio: number;
  readyRatio: number;
  concurrency: number;
}

const DAY = 86_400_000;
const TEMPLATE = 'template';
const HOLDER = 'bench-setup';

const trivialAgent = defineAgent({ name: 'trivial', run: async () => ({ nothing: true }) });

function inboxName(i: number): string {
  return `inbox-${String(i).padStart(5, '0')}`;
}

interface IndexRow {
  wake_at: number | null;
  send_at: number | null;
  seq: number;
  exact: number;
  dead: number;
}

function readIndexRow(dir: string, inboxId: string): IndexRow {
  const db = new Database(join(dir, READY_INDEX_FILE), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT wake_at, send_at, seq, exact, dead FROM wake WHERE inbox_id = ?').get(inboxId) as IndexRow | undefined;
    if (row === undefined) throw new Error(`no ready-index row for ${inboxId} in ${dir}`);
    return row;
  } finally {
    db.close();
  }
}

/** One idle inbox through the API: an event run to done and a daily timer due in a day. */
async function makeTemplate(dir: string): Promise<{ file: string; row: IndexRow }> {
  const store = await openStore(`sqlite:${dir}`);
  try {
    const inbox = store.inbox(TEMPLATE);
    await inbox.addTimer({ id: 'digest', due: Date.now() + DAY, every: DAY });
    await inbox.ingest({ source: 'chat', sourceId: 'hello', payload: { text: 'hello' } });
    const gen = await inbox.acquire(HOLDER);
    if (gen === null) throw new Error('template: no lease');
    const claimed = await inbox.claimBatch(HOLDER, gen);
    await inbox.finish(HOLDER, gen, claimed.map((e) => e.id), { messages: ['hi'] });
    await inbox.release(HOLDER, gen);
  } finally {
    await store.close();
  }
  const file = join(dir, `${TEMPLATE}.db`);
  // Closed, so checkpointed: the .db file alone is the whole inbox.
  if (existsSync(`${file}-wal`)) throw new Error('template: the WAL file is still there after close');
  return { file, row: readIndexRow(dir, TEMPLATE) };
}

async function buildStore(dir: string, n: number, template: { file: string; row: IndexRow }): Promise<void> {
  mkdirSync(dir, { recursive: true });
  // Creates the ready index file while the directory is empty, so it records this boot with nothing to
  // re-derive: an open that found the copies with a new index would re-derive every row itself (~1 ms each).
  await (await openStore(`sqlite:${dir}`)).close();
  for (let i = 0; i < n; i++) copyFileSync(template.file, join(dir, `${inboxName(i)}.db`), constants.COPYFILE_FICLONE);
  const db = new Database(join(dir, READY_INDEX_FILE));
  try {
    const insert = db.prepare('INSERT INTO wake (inbox_id, wake_at, send_at, seq, exact, dead) VALUES (?, ?, ?, ?, ?, ?)');
    const { wake_at, send_at, seq, exact, dead } = template.row;
    db.transaction(() => {
      for (let i = 0; i < n; i++) insert.run(inboxName(i), wake_at, send_at, seq, exact, dead);
    })();
  } finally {
    db.close();
  }
  // What the store itself would write for a copy: re-derive one entry and compare.
  const store = await openStore(`sqlite:${dir}`);
  try {
    const probe = inboxName(n - 1);
    sqliteBackendOf(store).connection(probe, false)?.reindex();
    const rebuilt = readIndexRow(dir, probe);
    if (rebuilt.wake_at !== template.row.wake_at || rebuilt.send_at !== template.row.send_at || rebuilt.exact !== 1) {
      throw new Error(`tick setup: a copied inbox's entry differs from what the store derives (${JSON.stringify(rebuilt)} vs ${JSON.stringify(template.row)})`);
    }
    const listed = (await store.inboxes()).length;
    if (listed !== n) throw new Error(`tick setup: ${listed} inboxes in ${dir}, expected ${n}`);
    if ((await store.readyInboxes({})).length !== 0) throw new Error('tick setup: idle inboxes are listed as ready');
  } finally {
    await store.close();
  }
}

interface Side {
  n: number;
  dir: string;
  pool: WorkerPool;
  poolStore: Store;
  /** Another store object on the same directory: its writes send the pool no hint. */
  ingestStore: Store;
  events: RuntimeEvents;
}

async function openSide(dir: string, n: number, concurrency: number): Promise<Side> {
  const poolStore = await openStore(`sqlite:${dir}`);
  const ingestStore = await openStore(`sqlite:${dir}`);
  const events = new RuntimeEvents();
  const pool = new WorkerPool({
    store: poolStore,
    agent: trivialAgent,
    events,
    concurrency,
    // Only the wake under test (and the timer it arms) may start a pass.
    pollIntervalMs: 600_000,
  });
  await pool.start();
  return { n, dir, pool, poolStore, ingestStore, events };
}

async function closeSide(side: Side): Promise<void> {
  await side.pool.stop({ graceMs: 1_000 });
  await side.poolStore.close();
  await side.ingestStore.close();
}

/** The `working` inboxes of repetition `rep`: spread over the store, different each time. */
function workingSet(n: number, working: number, rep: number): string[] {
  const stride = Math.floor(n / working);
  return Array.from({ length: working }, (_, k) => inboxName(k * stride + ((rep * 3 + 1) % stride)));
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function timeQuery(calls: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await fn();
    times.push((performance.now() - start) * 1000);
  }
  return median(times);
}

async function tick(side: Side, plan: TickPlan, rep: number): Promise<TickSample> {
  const ids = workingSet(side.n, plan.working, rep);
  const wanted = new Set(ids);
  // The pool's last pass of the previous tick (woken as its turns ended) must be over: idle means idle.
  await pause(200);
  if (side.pool.active.length !== 0) throw new Error('tick: the pool is still running turns from the previous tick');

  let woken = false;
  let firstRun = Number.NaN;
  const finished = new Set<string>();
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => undefined);
  const offStarted = side.events.on('run:started', (run) => {
    if (!woken) fail(new Error(`tick: the pool started ${run.inboxId} before it was woken (not idle)`));
    if (Number.isNaN(firstRun)) firstRun = performance.now();
  });
  let allFinished: (at: number) => void = () => undefined;
  const runsDone = new Promise<number>((resolve) => {
    allFinished = resolve;
  });
  const offFinished = side.events.on('run:finished', (run) => {
    if (!wanted.has(run.inboxId)) fail(new Error(`tick: the pool ran ${run.inboxId}, which had no work`));
    if (run.outcome !== 'nothing') fail(new Error(`tick: a run ended with ${run.outcome}: ${run.error ?? ''}`));
    finished.add(run.inboxId);
    if (finished.size === plan.working) allFinished(performance.now());
  });
  const timer = setTimeout(() => fail(new Error(`tick: only ${finished.size} of ${plan.working} runs finished within 60 s`)), 60_000);
  try {
    await Promise.race([
      Promise.all(ids.map((id) => side.ingestStore.inbox(id).ingest({ source: 'tick', sourceId: `rep-${rep}`, payload: { rep } }))),
      failed,
    ]);
    const listed = await side.poolStore.readyInboxes({ limit: plan.working });
    if (listed.length !== plan.working || !listed.every((id) => wanted.has(id))) {
      throw new Error(`tick: readyInboxes listed ${JSON.stringify(listed)}, expected ${JSON.stringify(ids)}`);
    }
    const readyUs = await timeQuery(plan.queryCalls, () => side.poolStore.readyInboxes({ limit: plan.working }));
    const nextWakeUs = await timeQuery(plan.queryCalls, () => side.poolStore.nextWake());
    await pause(20);

    woken = true;
    const start = performance.now();
    side.pool.wake();
    const runsAt = await Promise.race([runsDone, failed]);
    while (side.pool.active.length > 0) await Promise.race([new Promise<void>((resolve) => setImmediate(resolve)), failed]);
    const doneAt = performance.now();
    return { tickMs: doneAt - start, firstRunMs: firstRun - start, runsMs: runsAt - start, readyUs, nextWakeUs };
  } finally {
    clearTimeout(timer);
    offStarted();
    offFinished();
  }
}

export async function runTickBench(plan: TickPlan, scratch: string, log: (line: string) => void): Promise<TickFigures> {
  const concurrency = plan.working;
  const setupStart = performance.now();
  const template = await makeTemplate(join(scratch, 'tick-template'));
  const smallDir = join(scratch, `tick-${plan.small}`);
  const bigDir = join(scratch, `tick-${plan.big}`);
  log(`service: tick setup, ${plan.small} and ${plan.big} inboxes (copies of one made through the API)`);
  await buildStore(smallDir, plan.small, template);
  await buildStore(bigDir, plan.big, template);
  const setupSeconds = (performance.now() - setupStart) / 1000;
  log(`service: tick setup done in ${setupSeconds.toFixed(1)} s`);

  const sides: Side[] = [];
  try {
    sides.push(await openSide(smallDir, plan.small, concurrency));
    sides.push(await openSide(bigDir, plan.big, concurrency));
    const [small, big] = sides as [Side, Side];
    await pause(50); // the pools' first passes (nothing to do) are over
    const samples: { small: TickSample[]; big: TickSample[] } = { small: [], big: [] };
    for (let rep = 0; rep < plan.reps; rep++) {
      const order: Array<['small' | 'big', Side]> = rep % 2 === 0 ? [['small', small], ['big', big]] : [['big', big], ['small', small]];
      for (const [name, side] of order) samples[name].push(await tick(side, plan, rep));
      const s = samples.small[rep] as TickSample;
      const b = samples.big[rep] as TickSample;
      log(
        `service: tick ${rep + 1}/${plan.reps}: ${plan.small} inboxes ${s.tickMs.toFixed(1)} ms (readyInboxes ${s.readyUs.toFixed(0)} µs),` +
          ` ${plan.big} inboxes ${b.tickMs.toFixed(1)} ms (readyInboxes ${b.readyUs.toFixed(0)} µs)`,
      );
    }
    return {
      plan,
      setupSeconds,
      small: samples.small,
      big: samples.big,
      tickRatio: median(samples.big.map((b, i) => b.tickMs / (samples.small[i] as TickSample).tickMs)),
      readyRatio: median(samples.big.map((b, i) => b.readyUs / (samples.small[i] as TickSample).readyUs)),
      concurrency,
    };
  } finally {
    for (const side of sides) await closeSide(side);
  }
}
