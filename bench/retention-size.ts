/**
 * Bounded size (issue 21): one SQLite inbox takes a webhook-heavy user's
 * deliveries for ten simulated days, each claimed and finished as a
 * worker would, with `doneEventsMs` one day and pruning every simulated
 * hour as `vigil serve` runs it; and the same run without retention. At
 * the end: the inbox file's size (main file and WAL), what its pages hold
 * (SQLite's dbstat), and whether every key of the run is still refused.
 *
 * Store defaults (WAL, synchronous FULL, batchLimit 100) apart from the
 * clock (a fake one, moved 864 s per 1,000 deliveries: 100,000 a day) and
 * the retention. The pruning is the Pruner's own sweep (src/runtime/
 * pruner.ts: store.prune in batches of 1,000 until nothing is left) at a
 * duty cycle of 1: its pauses are wall-clock time a simulated hour does
 * not have, and they change nothing in what it removes.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createFakeClock, openStore, type Inbox } from '../src/index.js';
import { Pruner } from '../src/runtime/pruner.js';
import { delivery } from './retention-payload.js';
import { elapsedSeconds, startTimer } from './timing.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 1);
const INBOX = 'github-app';
const HOLDER = 'bench-worker';

export interface SizePlan {
  events: number;
  perDay: number;
  /** Deliveries per ingestMany (and per simulated step of the clock). */
  batch: number;
  pruneEveryMs: number;
}

export const FULL_SIZE_PLAN: SizePlan = { events: 1_000_000, perDay: 100_000, batch: 1_000, pruneEveryMs: HOUR };
export const QUICK_SIZE_PLAN: SizePlan = { events: 20_000, perDay: 2_000, batch: 200, pruneEveryMs: HOUR };

/** One b-tree of the file (a table or an index) as dbstat counts it. */
export interface Btree {
  name: string;
  pages: number;
  bytes: number;
  /** Bytes of its pages that hold nothing. */
  unusedBytes: number;
}

export interface FileShape {
  pageSize: number;
  pageCount: number;
  freelistPages: number;
  btrees: Btree[];
}

export interface SizeRun {
  retentionMs: number | null;
  seconds: number;
  /** At the end, the store still open, as a running service leaves them. */
  mainBytes: number;
  walBytes: number;
  /** After the store closed (its last connection checkpoints and removes the WAL). */
  closedBytes: number;
  liveEvents: number;
  tombstones: number;
  pruned: { events: number; sweeps: number; seconds: number };
  shape: FileShape;
  /** Every key offered again: how many were stored (should be none), and how long it took. */
  recheck: { offered: number; stored: number; seconds: number } | null;
}

export interface SizeRunOptions {
  dir: string;
  plan: SizePlan;
  retentionMs: number | null;
  recheck: boolean;
  log(line: string): void;
}

/** A worker's turn: take the lease, claim and finish until nothing is claimable, give the lease back. */
async function work(inbox: Inbox): Promise<number> {
  const gen = await inbox.acquire(HOLDER);
  if (gen === null) throw new Error('the bench worker could not take the lease');
  let done = 0;
  for (let i = 0; i < 10_000; i++) {
    const batch = await inbox.claimBatch(HOLDER, gen);
    if (batch.length === 0) break;
    if (!(await inbox.finish(HOLDER, gen, batch.map((e) => e.id), {}))) throw new Error('finish was refused');
    done += batch.length;
  }
  await inbox.release(HOLDER, gen);
  return done;
}

export async function runSize(options: SizeRunOptions): Promise<SizeRun> {
  const { plan, retentionMs, log } = options;
  const clock = createFakeClock(T0);
  const store = await openStore(`sqlite:${options.dir}`, {
    clock: clock.now,
    ...(retentionMs === null ? {} : { retention: { doneEventsMs: retentionMs } }),
  });
  const file = join(options.dir, `${INBOX}.db`);
  const label = retentionMs === null ? 'without retention' : 'with retention';
  const started = startTimer();
  const pruned = { events: 0, sweeps: 0, seconds: 0 };
  store.events.on('store:pruned', (e) => {
    pruned.events += e.events;
  });
  try {
    const inbox = store.inbox(INBOX);
    const pruner = new Pruner({ store, dutyCycle: 1 });
    const stepMs = Math.round((DAY / plan.perDay) * plan.batch);
    let nextPrune = T0 + plan.pruneEveryMs;
    for (let offset = 0; offset < plan.events; offset += plan.batch) {
      const n = Math.min(plan.batch, plan.events - offset);
      const stored = await inbox.ingestMany(Array.from({ length: n }, (_, k) => delivery(offset + k, clock.now())));
      if (stored.some((s) => !s)) throw new Error(`a new delivery was refused near ${offset}`);
      if ((await work(inbox)) !== n) throw new Error(`the worker did not finish all ${n} deliveries near ${offset}`);
      clock.advance(stepMs);
      if (retentionMs !== null && clock.now() >= nextPrune) {
        const t = startTimer();
        await pruner.sweep();
        pruned.seconds += elapsedSeconds(t);
        pruned.sweeps += 1;
        nextPrune += plan.pruneEveryMs;
      }
      const through = offset + n;
      if (through % plan.perDay === 0) {
        const size = fileBytes(file) + fileBytes(`${file}-wal`);
        log(`retention size, ${label}: day ${through / plan.perDay}, ${through.toLocaleString('en-US')} events, ${(size / 2 ** 20).toFixed(1)} MiB, ${elapsedSeconds(started).toFixed(0)} s`);
      }
    }
    const seconds = elapsedSeconds(started);
    const mainBytes = fileBytes(file);
    const walBytes = fileBytes(`${file}-wal`);
    const shape = fileShape(file);
    const stats = await inbox.stats();
    const tombstones = countTombstones(file);
    let recheck: SizeRun['recheck'] = null;
    if (options.recheck) recheck = await offerEveryKeyAgain(inbox, plan, clock.now(), log);
    await store.close();
    return {
      retentionMs,
      seconds,
      mainBytes,
      walBytes,
      closedBytes: fileBytes(file) + fileBytes(`${file}-wal`),
      liveEvents: stats.events.done + stats.events.pending + stats.events.running + stats.events.dead,
      tombstones,
      pruned,
      shape,
      recheck,
    };
  } finally {
    await store.close();
  }
}

/** ingestMany of every key the run stored, in the run's batches: a redelivery of any of them must be refused. */
async function offerEveryKeyAgain(inbox: Inbox, plan: SizePlan, now: number, log: (line: string) => void): Promise<{ offered: number; stored: number; seconds: number }> {
  const started = startTimer();
  let stored = 0;
  for (let offset = 0; offset < plan.events; offset += plan.batch) {
    const n = Math.min(plan.batch, plan.events - offset);
    const results = await inbox.ingestMany(Array.from({ length: n }, (_, k) => delivery(offset + k, now)));
    stored += results.filter(Boolean).length;
  }
  const seconds = elapsedSeconds(started);
  log(`retention size: offered all ${plan.events.toLocaleString('en-US')} keys again in ${seconds.toFixed(0)} s: ${stored} stored`);
  return { offered: plan.events, stored, seconds };
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** A second, read-only connection: what each table and index of the file occupies. */
export function fileShape(file: string): FileShape {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const btrees = db
      .prepare('SELECT name, count(*) AS pages, sum(pgsize) AS bytes, sum(unused) AS unusedBytes FROM dbstat GROUP BY name ORDER BY bytes DESC')
      .all() as Btree[];
    return {
      pageSize: db.pragma('page_size', { simple: true }) as number,
      pageCount: db.pragma('page_count', { simple: true }) as number,
      freelistPages: db.pragma('freelist_count', { simple: true }) as number,
      btrees,
    };
  } finally {
    db.close();
  }
}

function countTombstones(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM tombstones').pluck().get() as number;
  } finally {
    db.close();
  }
}

