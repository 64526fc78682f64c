/**
 * One store's soak from start to finish: where the data lives (a throwaway
 * PostgreSQL server, or a temporary SQLite directory), one or two passes of
 * the phase plan (Vigil and graphile-worker together, or one after the
 * other: config.ts), the verdict and the charts. Everything it starts it
 * stops, in reverse order, whether the run ends, fails or is interrupted.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describeMachine } from '../machine.js';
import { dropSchema, openBenchServer, type BenchServer } from '../postgres-server.js';
import { writeCharts } from './charts.js';
import { judgeSide, type SideVerdict } from './checks.js';
import { pollFor, REPO, type SoakConfig, type StoreKind } from './config.js';
import { openGraphileSide } from './graphile-side.js';
import { holdHorizon } from './horizon.js';
import { phasePlan, type Phase } from './phases.js';
import type { Pass, StoreRun } from './report.js';
import { Sampler, type Sample, type TickHook } from './sampler.js';
import type { Side, SideKey } from './side.js';
import { oldestXminAge } from './storage.js';
import { drain, runTimeline } from './timeline.js';
import { openVigilSide } from './vigil-side.js';

/** Server settings that decide how vacuum keeps up, reported with the run. */
const VACUUM_SETTINGS = [
  'autovacuum',
  'autovacuum_naptime',
  'autovacuum_vacuum_threshold',
  'autovacuum_vacuum_scale_factor',
  'autovacuum_vacuum_insert_scale_factor',
  'idle_in_transaction_session_timeout',
];

/**
 * What runs beside the load once per side per sample (sampler.ts). With
 * --retention, the pruning itself runs in the worker processes, as in
 * `vigil serve` (vigil-worker.ts); the hook reads what it did into each
 * sample's `extra`: rows pruned so far, and the tombstones (PostgreSQL).
 */
export function tickHooks(config: Pick<SoakConfig, 'retentionMs'>): TickHook[] {
  if (config.retentionMs === null) return [];
  return [{ name: 'retention', tick: async (side) => side.retention?.() }];
}

type Log = (line: string) => void;

/** Stops what was started, last first; a failure to stop one thing does not keep the others running. */
class Stack {
  private readonly items: { name: string; stop: () => Promise<void> }[] = [];
  constructor(private readonly log: Log) {}
  defer(name: string, stop: () => Promise<void>): void {
    this.items.push({ name, stop });
  }
  async unwind(): Promise<void> {
    for (const { name, stop } of this.items.reverse()) {
      await stop().catch((error: unknown) => this.log(`stopping ${name} failed: ${String(error)}`));
    }
    this.items.length = 0;
  }
}

export async function soakStore(config: SoakConfig, store: StoreKind, signal: AbortSignal, log: Log): Promise<StoreRun> {
  const started = Date.now();
  const stack = new Stack(log);
  try {
    const machine = describeMachine(tmpdir());
    mkdirSync(config.resultsDir, { recursive: true });
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    const resultsFile = join(config.resultsDir, `soak-${store}-${stamp}.jsonl`);
    let server: BenchServer | null = null;
    let serverSettings: Record<string, string> | null = null;
    if (store === 'postgres') {
      log('starting PostgreSQL (DATABASE_URL if set, else a throwaway server on 127.0.0.1)');
      const opened = await openBenchServer(config.pgSettings);
      server = opened;
      stack.defer('the PostgreSQL server', () => opened.stop());
      serverSettings = { ...opened.settings, ...(await readSettings(opened, VACUUM_SETTINGS)) };
    }
    const phases = phasePlan(config.minutes, store, config.warmupMs);
    writeFileSync(resultsFile, JSON.stringify({ type: 'run', store, date: new Date().toISOString(), config, phases, machine, server: serverSettings }) + '\n');
    log(`samples: ${relative(REPO, resultsFile)}`);

    const plan: SideKey[][] =
      store === 'sqlite' || config.graphile === 'off' ? [['vigil']] : config.graphile === 'after' ? [['vigil'], ['graphile']] : [['vigil', 'graphile']];
    const samples: Sample[] = [];
    const verdicts: SideVerdict[] = [];
    const passes: Pass[] = [];
    for (const keys of plan) {
      const pass = await runPass({ config, store, keys, phases, server, resultsFile, signal, log });
      samples.push(...pass.samples);
      verdicts.push(...pass.verdicts);
      passes.push(pass.pass);
    }

    const label = `${store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${config.minutes}-minute run`;
    const kills = [...new Set(passes[0]!.timeline.kills.map((k) => k.t))];
    const charts = config.out === null ? [] : writeCharts(config.plotsDir, store, label, phases, samples, kills);
    appendFileSync(resultsFile, JSON.stringify({ type: 'summary', passes, verdicts }) + '\n');
    return {
      store,
      date: new Date(started).toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      config,
      durationS: (Date.now() - started) / 1000,
      machine,
      loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
      server: server === null || serverSettings === null ? null : { origin: server.origin, settings: pickReported(serverSettings) },
      phases,
      passes,
      verdicts,
      charts,
      resultsFile: relative(REPO, resultsFile),
      pollIntervalMs: pollFor(config, store),
    };
  } finally {
    await stack.unwind();
  }
}

interface PassOptions {
  config: SoakConfig;
  store: StoreKind;
  keys: SideKey[];
  phases: Phase[];
  server: BenchServer | null;
  resultsFile: string;
  signal: AbortSignal;
  log: Log;
}

/** The phase plan once, with these sides: their data, their worker processes, the timeline, the drain, the verdict. */
async function runPass(options: PassOptions): Promise<{ samples: Sample[]; verdicts: SideVerdict[]; pass: Pass }> {
  const { config, store, keys, phases, server, log } = options;
  const stack = new Stack(log);
  try {
    log(`pass: ${keys.join(' and ')}`);
    appendFileSync(options.resultsFile, JSON.stringify({ type: 'pass', sides: keys }) + '\n');
    const sides: Side[] = [];
    for (const key of keys) {
      if (server !== null) {
        const schema = `soak_${key}_${process.pid}`;
        stack.defer(`schema ${schema}`, () => dropSchema(server.admin, schema));
        const side =
          key === 'vigil'
            ? await openVigilSide(config, { store: 'postgres', url: server.url, schema, admin: server.admin }, log)
            : await openGraphileSide(config, server.url, schema, server.admin, log);
        sides.push(side);
        stack.defer(`the ${key} side`, () => side.close());
      } else {
        const dir = mkdtempSync(join(tmpdir(), 'vigil-soak-'));
        stack.defer(`directory ${dir}`, async () => rmSync(dir, { recursive: true, force: true }));
        const side = await openVigilSide(config, { store: 'sqlite', dir: join(dir, 'store') }, log);
        sides.push(side);
        stack.defer('the vigil side', () => side.close());
      }
    }
    for (const side of sides) stack.defer(`${side.key} workers`, () => side.fleet.stop());

    log(`starting ${config.workers} worker processes per side`);
    await Promise.all(sides.map((side) => side.fleet.start()));
    const t0 = Date.now();
    const sampler = new Sampler(
      { store, sides, file: options.resultsFile, hooks: tickHooks(config), xminAge: server === null ? null : () => oldestXminAge(server.admin), log },
      t0,
    );
    for (const side of sides) side.producer.start();
    const timeline = await runTimeline({
      phases,
      sides,
      rate: config.rate,
      sampleMs: config.sampleMs,
      killEveryMs: config.killEveryMs,
      sampler,
      holdHorizon: server === null ? null : () => holdHorizon(server.url),
      t0,
      signal: options.signal,
      log,
    });
    const drainLimitMs = config.leaseTtlMs + 60_000;
    const drained = await drain({ sides, sampler, sampleMs: config.sampleMs, limitMs: drainLimitMs, signal: options.signal, log });
    for (const side of sides) await side.fleet.stop();
    const verdicts: SideVerdict[] = [];
    for (const side of sides) verdicts.push(await judgeSide(side, store, phases, sampler.samples, timeline, drainLimitMs / 1000));
    return { samples: sampler.samples, verdicts, pass: { sides: keys, timeline, drained } };
  } finally {
    await stack.unwind();
  }
}

async function readSettings(server: BenchServer, names: string[]): Promise<Record<string, string>> {
  const { rows } = await server.admin.query<{ name: string; setting: string; unit: string | null }>('SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)', [names]);
  return Object.fromEntries(rows.map((r) => [r.name, r.unit === null || r.unit === '' ? r.setting : `${r.setting} ${r.unit}`]));
}

/** The settings worth a line in the report. */
function pickReported(settings: Record<string, string>): Record<string, string> {
  const keep = ['server_version', 'fsync', 'synchronous_commit', 'shared_buffers', ...VACUUM_SETTINGS];
  return Object.fromEntries(keep.filter((k) => k in settings).map((k) => [k, settings[k]!]));
}
