/**
 * The PostgreSQL benchmark family: Vigil's PostgreSQL store against
 * graphile-worker on the same work (postgres-workload.ts), on the same server,
 * in the same run (issue 3, item 6).
 *
 * Each repetition runs every measurement of both sides once, each in a fresh
 * schema, in an order that flips every repetition, so a burst of load from
 * other processes falls on both alike; ratios are taken per repetition
 * (paired), then their median. The end-to-end targets (issue 22) compare
 * Vigil's default claim with graphile's best configuration, and
 * `batchLimit: 1` with graphile's default (one job per fetch: the same
 * work per event), each *in the same repetition*.
 */
import { loadavg, tmpdir } from 'node:os';
import { graphileAddJob, graphileRuns } from './graphile-side.js';
import { describeMachine } from './machine.js';
import { floorRuns } from './postgres-floor-side.js';
import { openBenchServer, type ServerWork } from './postgres-server.js';
import { renderPostgresConsole, renderPostgresSection, writePostgresSection, type PgRunInfo } from './postgres-report.js';
import { PG_FULL_PLAN, PG_QUICK_PLAN, type PgPlan } from './postgres-workload.js';
import { median, elapsedSeconds, startTimer } from './timing.js';
import { vigilIngest, vigilRuns, type RunFigures } from './vigil-postgres-side.js';

/** `npm run bench -- --only postgres` runs this family alone. */
export const POSTGRES_FAMILY = 'postgres';

export const VIGIL_PG = 'Vigil (PostgreSQL)';
export const GRAPHILE = 'graphile-worker';
export const FLOOR = 'floor: plain SQL';

/** Every figure: its key, what it is, and one sample per repetition. */
export interface PgFigure {
  key: PgFigureKey;
  side: typeof VIGIL_PG | typeof GRAPHILE | typeof FLOOR;
  label: string;
  unit: 'events/s' | 'jobs/s';
  samples: number[];
}

export type PgFigureKey =
  | 'vigilIngest'
  | 'vigilDuplicate'
  | 'graphileAddJob'
  | 'graphileDuplicate'
  | 'vigilDefault'
  | 'floorDefault'
  | 'vigilSeparate'
  | 'vigilBatch1'
  | 'graphileDefault'
  | 'graphileBatched';

function labels(plan: PgPlan): Record<PgFigureKey, [PgFigure['side'], string, PgFigure['unit']]> {
  const n = (plan.inboxes * plan.perInbox).toLocaleString('en-US');
  return {
    vigilIngest: [VIGIL_PG, `ingest, ${n} new events, one call each`, 'events/s'],
    vigilDuplicate: [VIGIL_PG, `ingest, the same ${n} keys again (duplicates)`, 'events/s'],
    graphileAddJob: [GRAPHILE, `addJob with job_key, jobKeyMode 'unsafe_dedupe', ${n} new`, 'jobs/s'],
    graphileDuplicate: [GRAPHILE, `addJob, the same ${n} job keys again`, 'jobs/s'],
    vigilDefault: [VIGIL_PG, 'end to end, default claim (a run takes what its inbox has pending)', 'events/s'],
    floorDefault: [FLOOR, "the default claim's durable row changes, Vigil's schema, none of its rules (postgres-floor-side.ts)", 'events/s'],
    vigilSeparate: [VIGIL_PG, 'end to end, default claim, the separate calls (acquire, claimBatch, finish, release)', 'events/s'],
    vigilBatch1: [VIGIL_PG, 'end to end, batchLimit: 1 (one event per run)', 'events/s'],
    graphileDefault: [GRAPHILE, 'end to end, default options', 'jobs/s'],
    graphileBatched: [GRAPHILE, 'end to end, localQueue { size: 500 }, completeJobBatchDelay: 0', 'jobs/s'],
  };
}

export interface PgTarget {
  name: string;
  measure: string;
  goal: number;
  /** Median of the per-repetition ratios. */
  value: number | null;
  perRep: number[];
  pass: boolean | null;
}

/** What the server did for an end-to-end figure, per repetition (postgres-server.ts, ServerWork). */
export interface PgWork {
  key: PgFigureKey;
  side: PgFigure['side'];
  label: string;
  /** WAL flushes per 1,000 events (jobs); null where the server does not count them. */
  flushesPer1000: (number | null)[];
  /** Transactions committed per 1,000 events (jobs), every client's. */
  commitsPer1000: number[];
  /** CPU ms of the server's processes per 1,000 events (jobs); null where they cannot be read. */
  serverCpuPer1000: (number | null)[];
  /** CPU ms of the bench process (the side's client) per 1,000 events (jobs). */
  clientCpuPer1000: number[];
}

export interface PgResults {
  figures: PgFigure[];
  work: PgWork[];
  /** Per repetition: graphile's better end-to-end configuration and its jobs/s. */
  bestGraphile: { config: string; value: number }[];
  targets: PgTarget[];
}

type Log = (line: string) => void;

export interface PgRunOptions {
  quick: boolean;
  /** Where to write the section; null for a diagnostic run that only prints. */
  out: string | null;
  /** Server settings for a diagnostic run on a throwaway server (e.g. fsync off). */
  serverSettings: Record<string, string>;
  log: Log;
}

/** Runs the family; returns true when every target passed. */
export async function runPostgresVsGraphile(options: PgRunOptions): Promise<boolean> {
  const { log } = options;
  const plan = options.quick ? PG_QUICK_PLAN : PG_FULL_PLAN;
  const started = startTimer();
  const machine = describeMachine(tmpdir());
  log(`PostgreSQL vs graphile-worker: ${options.quick ? 'quick' : 'full'} plan; starting the server`);
  const server = await openBenchServer(options.serverSettings);
  let results: PgResults;
  try {
    log(`server: ${server.origin}, PostgreSQL ${server.settings.server_version}, fsync ${server.settings.fsync}, synchronous_commit ${server.settings.synchronous_commit}`);
    results = await measure(plan, server.url, server.admin, log);
  } finally {
    await server.stop();
  }
  const run: PgRunInfo = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    planName: options.quick ? 'quick' : 'full',
    plan,
    machine,
    server: { origin: server.origin, settings: server.settings },
    results,
    durationSeconds: elapsedSeconds(started),
    loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
    diagnostic: options.out === null,
  };
  process.stdout.write(renderPostgresConsole(run) + '\n');
  if (options.out !== null) {
    writePostgresSection(options.out, renderPostgresSection(run));
    log(`wrote the PostgreSQL section of ${options.out}`);
  }
  return results.targets.every((t) => t.pass === true);
}

async function measure(plan: PgPlan, url: string, admin: import('pg').Pool, log: Log): Promise<PgResults> {
  const samples = new Map<PgFigureKey, number[]>();
  const add = (key: PgFigureKey, value: number): void => {
    samples.set(key, [...(samples.get(key) ?? []), value]);
  };
  const works = new Map<PgFigureKey, (ServerWork & { clientCpuMs: number })[]>();
  const events = plan.inboxes * plan.perInbox;
  const addRun = (key: PgFigureKey, run: RunFigures): void => {
    add(key, run.eventsPerSecond);
    works.set(key, [...(works.get(key) ?? []), { ...run.work, clientCpuMs: run.clientCpuMs }]);
  };
  const perEvents = (work: ServerWork): string =>
    `${work.walFlushes === null ? '?' : Math.round((work.walFlushes * 1000) / events)} WAL flushes, ${Math.round((work.commits * 1000) / events)} commits, ` +
    `${work.serverCpuMs === null ? '?' : Math.round((work.serverCpuMs * 1000) / events)} server CPU ms per 1,000`;
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  let schemaSeq = 0;
  const schema = (side: string): string => `bench_${side}_${process.pid}_${++schemaSeq}`;

  const steps: Record<string, () => Promise<void>> = {
    'Vigil ingest': async () => {
      const r = await vigilIngest(url, schema('vigil'), admin, plan);
      add('vigilIngest', r.ingestPerSecond);
      add('vigilDuplicate', r.duplicatePerSecond);
      log(`  Vigil ingest ${fmt(r.ingestPerSecond)}/s, duplicates ${fmt(r.duplicatePerSecond)}/s`);
    },
    'graphile addJob': async () => {
      const r = await graphileAddJob(url, schema('graphile'), admin, plan);
      add('graphileAddJob', r.ingestPerSecond);
      add('graphileDuplicate', r.duplicatePerSecond);
      log(`  graphile addJob ${fmt(r.ingestPerSecond)}/s, duplicates ${fmt(r.duplicatePerSecond)}/s`);
    },
    'Vigil default claim': async () => {
      const r = await vigilRuns(url, schema('vigil'), admin, plan, 'steps');
      addRun('vigilDefault', r);
      log(`  Vigil default claim ${fmt(r.eventsPerSecond)} events/s (${r.runs} runs, ${r.seconds.toFixed(1)} s); ${perEvents(r.work)}`);
    },
    'plain SQL floor': async () => {
      const r = await floorRuns(url, schema('floor'), admin, plan);
      addRun('floorDefault', r);
      log(`  plain SQL floor ${fmt(r.eventsPerSecond)} events/s (${r.seconds.toFixed(1)} s); ${perEvents(r.work)}`);
    },
    'Vigil separate calls': async () => {
      const r = await vigilRuns(url, schema('vigil'), admin, plan, 'separate');
      addRun('vigilSeparate', r);
      log(`  Vigil default claim, separate calls ${fmt(r.eventsPerSecond)} events/s (${r.runs} runs, ${r.seconds.toFixed(1)} s); ${perEvents(r.work)}`);
    },
    'Vigil batchLimit 1': async () => {
      const r = await vigilRuns(url, schema('vigil'), admin, plan, 'steps', 1);
      addRun('vigilBatch1', r);
      log(`  Vigil batchLimit 1 ${fmt(r.eventsPerSecond)} events/s (${r.seconds.toFixed(1)} s); ${perEvents(r.work)}`);
    },
    'graphile default': async () => {
      const r = await graphileRuns(url, schema('graphile'), admin, plan, false);
      addRun('graphileDefault', r);
      log(`  graphile default ${fmt(r.eventsPerSecond)} jobs/s (${r.seconds.toFixed(1)} s); ${perEvents(r.work)}`);
    },
    'graphile batched': async () => {
      const r = await graphileRuns(url, schema('graphile'), admin, plan, true);
      addRun('graphileBatched', r);
      log(`  graphile batched ${fmt(r.eventsPerSecond)} jobs/s (${r.seconds.toFixed(1)} s); ${perEvents(r.work)}`);
    },
  };
  const order = ['Vigil ingest', 'graphile addJob', 'Vigil default claim', 'plain SQL floor', 'graphile batched', 'Vigil separate calls', 'Vigil batchLimit 1', 'graphile default'];
  for (let rep = 0; rep < plan.reps; rep++) {
    log(`repetition ${rep + 1} of ${plan.reps}`);
    const now = order.filter((name) => name !== 'graphile default' || rep < plan.graphileDefaultReps);
    for (const name of rep % 2 === 0 ? now : [...now].reverse()) await steps[name]!();
  }

  const named = labels(plan);
  const figures: PgFigure[] = (Object.keys(named) as PgFigureKey[]).map((key) => {
    const [side, label, unit] = named[key];
    return { key, side, label, unit, samples: samples.get(key) ?? [] };
  });
  const get = (key: PgFigureKey): number[] => samples.get(key) ?? [];
  // A repetition without graphile's default configuration (a quick plan's) compares with its batched one.
  const bestGraphile = get('graphileBatched').map((batched, i) => {
    const plain = get('graphileDefault')[i];
    return plain === undefined || batched >= plain ? { config: 'batched', value: batched } : { config: 'default', value: plain };
  });
  const ratio = (a: number[], b: number[]): number[] => a.map((x, i) => x / (b[i] as number));
  const target = (name: string, measure: string, goal: number, perRep: number[]): PgTarget => {
    const value = perRep.length === 0 ? null : median(perRep);
    return { name, measure, goal, value, perRep, pass: value === null ? null : value >= goal };
  };
  const best = bestGraphile.map((b) => b.value);
  const targets = [
    target(
      'end to end, Vigil default claim vs graphile-worker at its best (issue 22)',
      'Vigil events/s ÷ best graphile jobs/s, per repetition',
      2,
      ratio(get('vigilDefault'), best),
    ),
    target(
      'end to end, Vigil batchLimit: 1 vs graphile-worker default, one job per fetch (issue 22)',
      'Vigil events/s ÷ graphile default jobs/s, per repetition',
      2,
      ratio(get('vigilBatch1'), get('graphileDefault')),
    ),
    target('ingest vs addJob (issue 3)', 'Vigil ingest/s ÷ graphile addJob/s, per repetition', 1.5, ratio(get('vigilIngest'), get('graphileAddJob'))),
    target(
      'duplicate ingest vs duplicate addJob (issue 3)',
      'Vigil ingest/s ÷ graphile addJob/s on the same keys again, per repetition',
      1.5,
      ratio(get('vigilDuplicate'), get('graphileDuplicate')),
    ),
  ];
  const work: PgWork[] = figures
    .filter((f) => works.has(f.key))
    .map((f) => ({
      key: f.key,
      side: f.side,
      label: f.label,
      flushesPer1000: works.get(f.key)!.map((w) => (w.walFlushes === null ? null : (w.walFlushes * 1000) / events)),
      commitsPer1000: works.get(f.key)!.map((w) => (w.commits * 1000) / events),
      serverCpuPer1000: works.get(f.key)!.map((w) => (w.serverCpuMs === null ? null : (w.serverCpuMs * 1000) / events)),
      clientCpuPer1000: works.get(f.key)!.map((w) => (w.clientCpuMs * 1000) / events),
    }));
  return { figures, work, bestGraphile, targets };
}
