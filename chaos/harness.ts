/**
 * One chaos run, start to end, bounded in time:
 *
 *   1. open the store (migrate), plan the events, add the timers;
 *   2. start K worker processes (fleet.ts);
 *   3. the chaos window: feed events with duplicates, answer approvals,
 *      and deliver the kills, each either a SIGKILL now or a crash point
 *      armed in a random worker; dead workers are restarted;
 *   4. the drain: no more kills (poison events still kill), feed what is
 *      left, stop the interval timers, wait until nothing is pending,
 *      running, held or unanswered, at most drainMs;
 *   5. SIGKILL every worker, read the journals, check the invariants.
 */
import { performance } from 'node:perf_hooks';
import type { StoreOptions } from '../src/store/contract.js';
import { openStore } from '../src/store/index.js';
import { ApprovalClerk } from './approvals.js';
import { checkRun, type CheckResult } from './checks.js';
import type { ChaosConfig } from './config.js';
import { CHAOS_POINTS } from './crash-points.js';
import { Feeder } from './feeder.js';
import { Fleet, type FleetCounts } from './fleet.js';
import { readJournals } from './journal.js';
import { makePlace } from './place.js';
import { inboxName, planEvents } from './plan.js';
import { seeded, sleep } from './random.js';
import { addTimers, stopIntervals } from './timers.js';

export interface ChaosReport {
  config: ChaosConfig;
  passed: boolean;
  durationMs: number;
  drainMs: number;
  /** Where the journals (and the SQLite store) are: kept when the run failed or `keep` was set. */
  dir: string;
  kills: { total: number; byPoint: Record<string, number>; poison: number; skipped: number };
  fleet: FleetCounts;
  feeder: { deliveries: number; refused: number };
  check: CheckResult;
}

const TICK_MS = 100;
/** Kills and crash points start after this share of the window and end before 1 - it. */
const EDGE = 0.05;
/** Share of kills that are a parent's SIGKILL at a random moment; the rest are armed crash points. */
const RANDOM_MOMENT_SHARE = 0.4;
/** A kill this late (no worker was ready when it was due) is dropped. */
const LATE_MS = 2_000;
/** A worker is killed at a random moment only once it has been ready this long: it gets to work first. */
const MIN_LIFE_MS = 500;

export async function runChaos(config: ChaosConfig): Promise<ChaosReport> {
  const log = (line: string): void => {
    if (config.verbose === true) process.stderr.write(`[chaos ${config.store}] ${line}\n`);
  };
  const started = performance.now();
  const random = seeded(config.seed);
  const place = makePlace(config);
  const storeOptions: StoreOptions = {
    leaseTtlMs: config.leaseTtlMs,
    maxAttempts: config.maxAttempts,
    outboxGapMs: 0,
    retryBackoff: { baseMs: 100, maxMs: 1_000 },
    ...(place.schema === undefined ? {} : { schema: place.schema }),
  };
  const store = await openStore(place.storeUrl, storeOptions);
  const fleet = new Fleet({
    workers: config.workers,
    storeUrl: place.storeUrl,
    storeOptions,
    journalDir: place.journalDir,
    concurrency: config.concurrency,
    leaseTtlMs: config.leaseTtlMs,
    atMostOnce: config.atMostOnce,
    random,
    log,
  });
  let passed = false;
  try {
    const plan = planEvents(config, random);
    const feeder = new Feeder(store, config.duplicateRate, random);
    const clerk = new ApprovalClerk(store, plan);
    const timers = await addTimers(store, { inboxes: config.inboxes, intervals: config.intervalTimers, every: config.intervalMs, oneOffs: config.oneOffTimers, windowMs: config.windowMs }, random);
    fleet.start();
    await waitFor(() => fleet.readyCount > 0, 60_000, 'no worker started within 60 s');

    // 3. The chaos window.
    const killAt = Array.from({ length: config.kills }, () => config.windowMs * (EDGE + (1 - 2 * EDGE) * random())).sort((a, b) => a - b);
    const feedUntil = config.windowMs * 0.8;
    const windowStart = performance.now();
    let fed = 0;
    let lastAnswer = 0;
    // Armed points go round the list (from a random start), so even a short run reaches each kind.
    let nextPoint = Math.floor(random() * CHAOS_POINTS.length);
    let skippedKills = 0;
    let answering: Promise<void> | null = null;
    for (let elapsed = 0; elapsed < config.windowMs; elapsed = performance.now() - windowStart) {
      const due = Math.min(plan.length, Math.ceil((plan.length * elapsed) / feedUntil));
      if (due > fed) {
        const slice = plan.slice(fed, (fed = due));
        await feeder.feed(slice);
        clerk.fed(slice);
      }
      // One kill per tick at most, so a late parent (a slow tick) never delivers a burst that would
      // kill every worker the moment it is ready. A kill that finds no worker ready waits, and is
      // dropped once overdue by LATE_MS.
      if (killAt.length > 0 && killAt[0]! <= elapsed) {
        const delivered = random() < RANDOM_MOMENT_SHARE ? fleet.killRandom(MIN_LIFE_MS) : fleet.arm(CHAOS_POINTS[nextPoint++ % CHAOS_POINTS.length]!);
        if (delivered) killAt.shift();
        else {
          while (killAt.length > 0 && killAt[0]! < elapsed - LATE_MS) {
            killAt.shift();
            skippedKills += 1;
          }
        }
      }
      // Answering runs beside the loop: with many asks not yet run it takes a while on a busy
      // database, and a late tick would make kills late (and dropped).
      if (answering === null && elapsed - lastAnswer >= 500) {
        lastAnswer = elapsed;
        answering = clerk.tick().finally(() => (answering = null));
      }
      await sleep(TICK_MS);
    }
    await answering;
    log(`window over: ${fed}/${plan.length} fed, ${fleet.counts.kills}/${config.kills} kills (${skippedKills} dropped: no worker ready), ${fleet.armedOutstanding} points still armed`);

    // 4. The drain.
    fleet.disarm();
    const drainStart = performance.now();
    await feeder.feed(plan.slice(fed));
    clerk.fed(plan.slice(fed));
    await feeder.flush();
    await stopIntervals(store, timers);
    let lastReport = 0;
    const quiet = async (): Promise<boolean> => {
      await clerk.tick();
      const left = { pending: 0, running: 0, held: 0, approvals: 0, timers: 0, unanswered: await clerk.waiting() };
      for (let n = 0; n < config.inboxes; n++) {
        const inbox = store.inbox(inboxName(n));
        const s = await inbox.stats();
        left.pending += s.events.pending;
        left.running += s.events.running;
        left.held += s.outbox.held;
        left.approvals += s.approvalsPending;
        left.timers += (await inbox.timers()).filter((t) => !t.done).length;
      }
      const waiting = Object.entries(left).filter(([, v]) => v > 0);
      if (performance.now() - lastReport > 5_000 && waiting.length > 0) {
        lastReport = performance.now();
        log(`draining: ${waiting.map(([k, v]) => `${k} ${v}`).join(', ')}; ${fleet.readyCount} workers ready`);
      }
      return waiting.length === 0;
    };
    let calm = 0;
    while (calm < 2 && performance.now() - drainStart < config.drainMs) {
      calm = (await quiet()) ? calm + 1 : 0;
      if (calm < 2) await sleep(500);
    }
    const drainMs = performance.now() - drainStart;
    log(calm >= 2 ? `drained in ${(drainMs / 1000).toFixed(1)} s` : `not drained after ${config.drainMs / 1000} s: checking anyway`);

    // 5. Stop and check.
    await fleet.stop();
    const journal = readJournals(place.journalDir);
    const workerErrors = fleet.counts.exitedWithCode.map((e) => `${e.holder} exited with code ${e.code}: ${e.stderr.trim().split('\n').slice(-3).join(' / ')}`);
    const check = await checkRun({ config, store, plan, acks: feeder.acks, asks: clerk.asks, timers, journal, workerErrors, diedDuringRun: fleet.diedDuringRun });
    const byPoint: Record<string, number> = { 'random moment': fleet.counts.killedAtRandom };
    let poison = 0;
    for (const r of journal) {
      if (r.k !== 'crash') continue;
      if (r.point === 'poison') poison += 1;
      else byPoint[r.point] = (byPoint[r.point] ?? 0) + 1;
    }
    const total = Object.values(byPoint).reduce((a, b) => a + b, 0);
    passed = check.invariants.every((inv) => inv.violations.length === 0);
    return {
      config,
      passed,
      durationMs: performance.now() - started,
      drainMs,
      dir: place.dir,
      kills: { total, byPoint, poison, skipped: skippedKills },
      fleet: fleet.counts,
      feeder: { deliveries: feeder.deliveries, refused: feeder.refused },
      check,
    };
  } finally {
    await fleet.stop();
    await store.close();
    if (passed && config.keep !== true) await place.remove();
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number, message: string): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > until) throw new Error(message);
    await sleep(50);
  }
}
