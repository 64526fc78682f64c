/**
 * The many-users family (issue 19): per-person settings must not make the
 * service's two loops cost more as the number of people grows.
 *
 * - A dispatcher pass over 10,000 inboxes that each hold a due message,
 *   1,000 of them in their person's quiet hours, against the same pass with
 *   none in quiet hours. Goal: at most 1.5x.
 * - `readyInboxes` over 10,000 debounced inboxes (each past its debounce)
 *   against 10,000 without a debounce. Goal: at most 1.5x.
 *
 * Two stores per backend, seeded once (bench/many-users-seed.ts): "plain"
 * (no settings) and "per-person" (every inbox debounced, one in ten of those
 * the passes send to also with quiet hours around the fake clock's now). Each repetition
 * measures both, in alternating order, so load from other processes falls
 * on both alike; ratios are medians of the per-repetition ratios. Both
 * stores on SQLite, then on PostgreSQL (a throwaway server unless
 * DATABASE_URL is set).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Store } from '../src/index.js';
import { writeBenchmarkSection } from './benchmarks-file.js';
import { describeMachine } from './machine.js';
import { DEBOUNCE_MS, eachConcurrently, QUIET_HOURS, queueOneMessageEach, seedPostgres, seedSqlite, type SeededStore, type SeedPlan } from './many-users-seed.js';
import { openBenchServer } from './postgres-server.js';
import { median } from './timing.js';

export const MANY_USERS_FAMILY = 'many-users';
export const MANY_USERS_HEADING = '## Many users';
const GOAL = 1.5;
/** As the dispatcher does (runtime/dispatcher.ts): listings of at most 1,000, four inboxes dispatched at once. */
const LIST_LIMIT = 1_000;
const DISPATCH_CONCURRENCY = 4;

interface Plan {
  /** Inboxes per store, each with a pending event: what readyInboxes lists. */
  inboxes: number;
  /** Of them, those that hold a message at each dispatcher pass (the first, by index), per backend. */
  messaged: { sqlite: number; postgres: number };
  /** One in this many messaged inboxes is in quiet hours (the first of each ten). */
  quietOneIn: number;
  /** Dispatcher passes per store (each after queueing a message in every messaged inbox). */
  passes: number;
  /** readyInboxes calls per store. */
  readyCalls: number;
}

/**
 * SQLite's pass is over 2,500 inboxes, all kept open: the process may open
 * 20,000 files, an open inbox holds three (its file, WAL and shared memory),
 * and two stores are measured side by side. Over 10,000 the files cycle
 * through the LRU and every dispatch opens one (~20 ms each on this loaded
 * machine), the same in both stores: the pass would time file opens, not
 * the store's work, for half an hour.
 */
const FULL: Plan = { inboxes: 10_000, messaged: { sqlite: 2_500, postgres: 10_000 }, quietOneIn: 10, passes: 3, readyCalls: 15 };
const QUICK: Plan = { inboxes: 300, messaged: { sqlite: 100, postgres: 300 }, quietOneIn: 10, passes: 2, readyCalls: 3 };

/** Paired samples of one measurement: plain and per-person, one pair per repetition. */
interface Pair {
  plain: number[];
  tuned: number[];
}

interface PassOutcome {
  ms: number;
  sent: number;
  /** dispatch() calls that sent nothing (inboxes in quiet hours, found so by their reserve). */
  empty: number;
  /** Their mean duration, and that of the calls that sent (four run at once, so each includes some waiting). */
  emptyCallMs: number;
  sendCallMs: number;
  /** Inboxes dispatchableInboxes still listed after the pass (must be none). */
  listedAfter: number;
}

interface BackendRun {
  store: string;
  messaged: number;
  seedSeconds: number;
  pass: Pair;
  passes: { plain: PassOutcome[]; tuned: PassOutcome[] };
  readyAll: Pair;
  readyPoll: Pair;
  readyCounts: { plain: number; tuned: number };
}

const pair = (): Pair => ({ plain: [], tuned: [] });

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** What the dispatcher does in one sweep: list due inboxes, dispatch each, until none is listed. The channels' own time is left out (a send that returns at once). */
async function dispatchPass(store: Store): Promise<PassOutcome> {
  let sent = 0;
  const calls = { empty: { count: 0, ms: 0 }, send: { count: 0, ms: 0 } };
  const start = performance.now();
  for (;;) {
    const due = await store.dispatchableInboxes({ limit: LIST_LIMIT });
    if (due.length === 0) break;
    await eachConcurrently(due, DISPATCH_CONCURRENCY, async (id) => {
      const callStart = performance.now();
      const count = await store.inbox(id).dispatch(() => undefined);
      const kind = count === 0 ? calls.empty : calls.send;
      kind.count += 1;
      kind.ms += performance.now() - callStart;
      sent += count;
    });
  }
  const ms = performance.now() - start;
  const mean = ({ count, ms: total }: { count: number; ms: number }): number => (count === 0 ? 0 : total / count);
  return {
    ms,
    sent,
    empty: calls.empty.count,
    emptyCallMs: mean(calls.empty),
    sendCallMs: mean(calls.send),
    listedAfter: (await store.dispatchableInboxes({ limit: LIST_LIMIT })).length,
  };
}

/** Quiet hours for one in `quietOneIn` of the messaged inboxes; a debounce for every inbox. */
function seedPlans(plan: Plan, messaged: number, maxOpenInboxes?: number): { plain: SeedPlan; tuned: SeedPlan } {
  const lru = maxOpenInboxes === undefined ? {} : { maxOpenInboxes };
  const quiet = (i: number): boolean => i < messaged && i % plan.quietOneIn === 0;
  return {
    plain: { inboxes: plan.inboxes, settingsFor: () => null, ...lru },
    tuned: {
      inboxes: plan.inboxes,
      settingsFor: (i) => (quiet(i) ? { wake: { debounceMs: DEBOUNCE_MS }, outbox: { quietHours: QUIET_HOURS } } : { wake: { debounceMs: DEBOUNCE_MS } }),
      ...lru,
    },
  };
}

async function measure(name: string, plain: SeededStore, tuned: SeededStore, plan: Plan, messaged: number, seedSeconds: number, log: (line: string) => void): Promise<BackendRun> {
  const run: BackendRun = { store: name, messaged, seedSeconds, pass: pair(), passes: { plain: [], tuned: [] }, readyAll: pair(), readyPoll: pair(), readyCounts: { plain: 0, tuned: 0 } };
  const both = [
    { side: 'plain' as const, seeded: plain },
    { side: 'tuned' as const, seeded: tuned },
  ];
  // Every pending event is past its debounce: both stores list every inbox.
  for (const { seeded } of both) seeded.clock.advance(2 * DEBOUNCE_MS);
  for (const { side, seeded } of both) run.readyCounts[side] = (await seeded.store.readyInboxes({ limit: plan.inboxes })).length;
  for (let i = 0; i < plan.readyCalls; i++) {
    for (const { side, seeded } of i % 2 === 0 ? both : [...both].reverse()) {
      run.readyAll[side].push(await timed(() => seeded.store.readyInboxes({ limit: plan.inboxes })));
      run.readyPoll[side].push(await timed(() => seeded.store.readyInboxes({ limit: 100 })));
    }
  }
  log(`many users (${name}): readyInboxes measured`);

  for (let i = 0; i < plan.passes; i++) {
    // A day later, the same time of day: the quiet inboxes are in quiet hours again, every gap has passed.
    for (const { seeded } of both) {
      seeded.clock.advance(86_400_000);
      await queueOneMessageEach(seeded.store, seeded.ids.slice(0, messaged));
    }
    for (const { side, seeded } of i % 2 === 0 ? both : [...both].reverse()) {
      const outcome = await dispatchPass(seeded.store);
      run.passes[side].push(outcome);
      run.pass[side].push(outcome.ms);
    }
    log(`many users (${name}): pass ${i + 1} of ${plan.passes}: ${run.pass.plain.at(-1)!.toFixed(0)} ms plain, ${run.pass.tuned.at(-1)!.toFixed(0)} ms with quiet hours`);
  }
  return run;
}

/** The median of the per-repetition ratios per-person ÷ plain. */
function ratio(p: Pair): number {
  return median(p.tuned.map((t, i) => t / (p.plain[i] as number)));
}

const ms = (samples: number[]): string => {
  const m = median(samples);
  const fmt = (v: number): string => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));
  return `${fmt(m)} ms (${fmt(Math.min(...samples))}–${fmt(Math.max(...samples))})`;
};

function render(runs: BackendRun[], plan: Plan, machine: string, loadAtStart: number[], seconds: number, pgCommit: string): string {
  const met = (value: number): string => (value <= GOAL ? 'yes' : '**no**');
  const callMs = (passes: PassOutcome[], pick: (p: PassOutcome) => number): string => median(passes.map(pick)).toFixed(2);
  const rows = runs.flatMap((run) => {
    const tunedPass = run.passes.tuned[0]!;
    return [
      `| ${run.store} | dispatcher pass, ${run.messaged.toLocaleString('en-US')} inboxes each holding a due message (${(run.messaged / plan.quietOneIn).toLocaleString('en-US')} of them in quiet hours, per-person) | ${ms(run.pass.plain)} | ${ms(run.pass.tuned)} | ${ratio(run.pass).toFixed(2)}x | ${met(ratio(run.pass))} |`,
      `| ${run.store} | readyInboxes, every inbox listed (limit ${plan.inboxes.toLocaleString('en-US')}) | ${ms(run.readyAll.plain)} | ${ms(run.readyAll.tuned)} | ${ratio(run.readyAll).toFixed(2)}x | ${met(ratio(run.readyAll))} |`,
      `| ${run.store} | readyInboxes, limit 100 (a pool's poll) | ${ms(run.readyPoll.plain)} | ${ms(run.readyPoll.tuned)} | ${ratio(run.readyPoll).toFixed(2)}x | |`,
      `| ${run.store} | (checks) | ${run.passes.plain[0]!.sent.toLocaleString('en-US')} sent a pass; ${run.readyCounts.plain.toLocaleString('en-US')} ready | ${tunedPass.sent.toLocaleString('en-US')} sent, ${tunedPass.empty.toLocaleString('en-US')} held by quiet hours, ${tunedPass.listedAfter} listed after the pass; ${run.readyCounts.tuned.toLocaleString('en-US')} ready | | |`,
      `| ${run.store} | one \`dispatch\` call, mean | ${callMs(run.passes.plain, (p) => p.sendCallMs)} ms sending | ${callMs(run.passes.tuned, (p) => p.sendCallMs)} ms sending, ${callMs(run.passes.tuned, (p) => p.emptyCallMs)} ms finding quiet hours | | |`,
    ];
  });
  return `${MANY_USERS_HEADING}

\`npm run bench -- --only many-users\` (bench/many-users.ts; also in the full run), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${seconds.toFixed(0)} s.
Machine: ${machine}. Load average (1/5/15 min) at the start ${loadAtStart.join(' / ')}, at the end ${loadavg().map((x) => x.toFixed(2)).join(' / ')}: the machine is shared, so
the absolute times move with it; the ratios are measured in one run, each repetition timing both stores in
alternating order.

Per-person settings must not make the service's loops cost more as the number of people grows. Two
stores of ${plan.inboxes.toLocaleString('en-US')} inboxes, each inbox with one pending event: **plain** (no settings) and
**per-person** (every inbox with \`wake.debounceMs\` ${DEBOUNCE_MS}, and one in ${plan.quietOneIn} of those the passes send to also with quiet
hours ${QUIET_HOURS.from}–${QUIET_HOURS.to} ${QUIET_HOURS.timeZone} around the fake clock's now). Goal (issue 19): per-person at most ${GOAL}x plain.
Plain has no settings at all, so a ratio counts reading every inbox's settings too, not only the quiet hours or the
debounce.

| store | measurement | plain | per-person | per-person ÷ plain | at most ${GOAL}x |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

- **Dispatcher pass**: before each pass, untimed, each of the first ${plan.messaged.postgres.toLocaleString('en-US')} inboxes on PostgreSQL (${plan.messaged.sqlite.toLocaleString('en-US')} on
  SQLite, all kept open: the process may open 20,000 files and an open inbox holds three, while over 10,000 inboxes
  the files cycle through the store's LRU and the pass would time a file open per inbox, ~20 ms each on this loaded
  machine and the same in both stores) gets one message queued as a run's \`finish\` does, and the
  clock moves on a day (the same time of day: the quiet inboxes are quiet again, every gap has passed). The pass is
  what the dispatcher does in a sweep: \`dispatchableInboxes({ limit: ${LIST_LIMIT} })\`, \`dispatch\` each listed inbox, ${DISPATCH_CONCURRENCY} at a
  time, until nothing is listed; the send returns at once (the channels' time is not the store's). In quiet hours an
  inbox's \`dispatch\` reserves nothing and records until when it is held, so the next listing skips it: the
  dispatcher finds due inboxes through the index, never by visiting every inbox. Median of ${plan.passes} passes per store.
  The mean \`dispatch\` call (four run at once, so each includes some waiting) shows what a pass is made of: the
  dispatch that finds an inbox in quiet hours sends nothing, yet it decides whether "now" is inside them
  (src/store/pacing.ts: croner's next run of the daily \`from\` and \`to\` in the time zone, several times), in the
  reserving transaction.
- **readyInboxes**: every pending event is past its debounce (the clock moved ${2 * DEBOUNCE_MS} ms after seeding), so both
  stores list every inbox; the debounce is decided when an inbox is written (its wake time), not when it is listed.
  Median of ${plan.readyCalls} calls per store, alternating.
- SQLite at synchronous NORMAL and PostgreSQL with \`synchronous_commit\` ${pgCommit}: a pass commits twice per inbox it sends, and
  at full durability it would time the disk's flushes, the same in both stores, rather than the store's work.
- Seeding, not measured: ${runs.map((run) => `${run.seedSeconds.toFixed(0)} s (${run.store})`).join(', ')}. On SQLite one inbox per kind is written through the store
  and its file copied under every id, then the ready index is rebuilt from the files; on PostgreSQL every inbox goes
  through the store.
`;
}

/** Both stores on a PostgreSQL server, and the synchronous_commit it ran with. */
async function onPostgres(plan: Plan, seeds: { plain: SeedPlan; tuned: SeedPlan }, log: (line: string) => void): Promise<{ run: BackendRun; commit: string }> {
  const server = await openBenchServer({ synchronous_commit: 'off' });
  const schemas = [`many_users_plain_${process.pid}`, `many_users_tuned_${process.pid}`] as const;
  try {
    const seedStart = performance.now();
    const plain = await seedPostgres(server.url, schemas[0], seeds.plain, log);
    const tuned = await seedPostgres(server.url, schemas[1], seeds.tuned, log);
    try {
      const run = await measure('PostgreSQL', plain, tuned, plan, plan.messaged.postgres, (performance.now() - seedStart) / 1000, log);
      return { run, commit: server.settings.synchronous_commit ?? '?' };
    } finally {
      await plain.close();
      await tuned.close();
    }
  } finally {
    for (const schema of schemas) await server.admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await server.stop();
  }
}

export async function runManyUsersFamily(options: { quick: boolean; out: string | null; log: (line: string) => void }): Promise<boolean> {
  const plan = options.quick ? QUICK : FULL;
  const started = performance.now();
  const loadAtStart = loadavg().map((x) => Math.round(x * 100) / 100);
  const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-many-users-'));
  const runs: BackendRun[] = [];
  try {
    const machine = describeMachine(scratch);
    const seedStart = performance.now();
    const sqliteSeeds = seedPlans(plan, plan.messaged.sqlite, plan.messaged.sqlite + 100);
    const plain = await seedSqlite(join(scratch, 'plain'), join(scratch, 'plain-templates'), sqliteSeeds.plain);
    const tuned = await seedSqlite(join(scratch, 'tuned'), join(scratch, 'tuned-templates'), sqliteSeeds.tuned);
    options.log(`many users (SQLite): seeded 2 × ${plan.inboxes} inboxes`);
    try {
      runs.push(await measure('SQLite', plain, tuned, plan, plan.messaged.sqlite, (performance.now() - seedStart) / 1000, options.log));
    } finally {
      await plain.close();
      await tuned.close();
    }
    const postgres = await onPostgres(plan, seedPlans(plan, plan.messaged.postgres), options.log);
    runs.push(postgres.run);
    const section = render(runs, plan, `${machine.cpu}, ${machine.cores} cores`, loadAtStart, (performance.now() - started) / 1000, postgres.commit);
    process.stdout.write(section + '\n');
    if (options.out !== null) {
      writeBenchmarkSection(options.out, MANY_USERS_HEADING, section);
      options.log(`wrote the many-users section of ${options.out}`);
    }
    return runs.every((run) => ratio(run.pass) <= GOAL && ratio(run.readyAll) <= GOAL);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
