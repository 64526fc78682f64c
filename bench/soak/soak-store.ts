/**
 * One store's soak from start to finish: where the data lives (a throwaway
 * PostgreSQL server and a schema per side, or a temporary SQLite
 * directory), the sides and their worker processes, the phase plan, the
 * drain, the verdict and the charts. Everything it starts it stops, in
 * reverse order, whether the run ends, fails or is interrupted.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describeMachine } from '../machine.js';
import { dropSchema, openBenchServer, type BenchServer } from '../postgres-server.js';
import { writeCharts } from './charts.js';
import { judgeSide } from './checks.js';
import { pollFor, REPO, type SoakConfig, type StoreKind } from './config.js';
import { openGraphileSide } from './graphile-side.js';
import { holdHorizon } from './horizon.js';
import { phasePlan } from './phases.js';
import type { StoreRun } from './report.js';
import { Sampler, type TickHook } from './sampler.js';
import type { Side } from './side.js';
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
 * What runs beside the load once per side per sample (sampler.ts). None
 * today: this is where a retention option would add its pruning pass.
 */
function tickHooks(): TickHook[] {
  return [];
}

export async function soakStore(config: SoakConfig, store: StoreKind, signal: AbortSignal, log: (line: string) => void): Promise<StoreRun> {
  const started = Date.now();
  const stack: { name: string; stop: () => Promise<void> }[] = [];
  const defer = (name: string, stop: () => Promise<void>): void => void stack.push({ name, stop });
  try {
    const machine = describeMachine(tmpdir());
    mkdirSync(config.resultsDir, { recursive: true });
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    const resultsFile = join(config.resultsDir, `soak-${store}-${stamp}.jsonl`);
    const sides: Side[] = [];
    let server: BenchServer | null = null;
    let serverSettings: Record<string, string> | null = null;

    if (store === 'postgres') {
      log('starting PostgreSQL (DATABASE_URL if set, else a throwaway server on 127.0.0.1)');
      const pgServer = await openBenchServer();
      server = pgServer;
      defer('the PostgreSQL server', () => pgServer.stop());
      serverSettings = { ...pgServer.settings, ...(await readSettings(pgServer, VACUUM_SETTINGS)) };
      const vigilSchema = `soak_vigil_${process.pid}`;
      defer(`schema ${vigilSchema}`, () => dropSchema(pgServer.admin, vigilSchema));
      const vigil = await openVigilSide(config, { store: 'postgres', url: pgServer.url, schema: vigilSchema, admin: pgServer.admin }, log);
      sides.push(vigil);
      defer('the Vigil side', () => vigil.close());
      if (config.graphile) {
        const graphileSchema = `soak_graphile_${process.pid}`;
        defer(`schema ${graphileSchema}`, () => dropSchema(pgServer.admin, graphileSchema));
        const graphile = await openGraphileSide(config, pgServer.url, graphileSchema, pgServer.admin, log);
        sides.push(graphile);
        defer('the graphile side', () => graphile.close());
      }
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'vigil-soak-'));
      defer(`directory ${dir}`, async () => rmSync(dir, { recursive: true, force: true }));
      const vigil = await openVigilSide(config, { store: 'sqlite', dir: join(dir, 'store') }, log);
      sides.push(vigil);
      defer('the Vigil side', () => vigil.close());
    }
    for (const side of sides) defer(`${side.key} workers`, () => side.fleet.stop());

    log(`starting ${config.workers} worker processes per side`);
    await Promise.all(sides.map((side) => side.fleet.start()));
    const phases = phasePlan(config.minutes, store);
    writeFileSync(resultsFile, JSON.stringify({ type: 'run', store, date: new Date().toISOString(), config, phases, machine, server: serverSettings }) + '\n');
    log(`samples: ${relative(REPO, resultsFile)}`);

    const t0 = Date.now();
    const pgServer = server;
    const sampler = new Sampler(
      { store, sides, file: resultsFile, hooks: tickHooks(), xminAge: pgServer === null ? null : () => oldestXminAge(pgServer.admin), log },
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
      holdHorizon: pgServer === null ? null : () => holdHorizon(pgServer.url),
      t0,
      signal,
      log,
    });
    const drained = await drain({ sides, sampler, sampleMs: config.sampleMs, limitMs: config.leaseTtlMs + 60_000, signal, log });
    for (const side of sides) await side.fleet.stop();

    const verdicts = [];
    for (const side of sides) verdicts.push(await judgeSide(side, store, phases, sampler.samples, timeline, drained));
    const label = `${store === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${config.minutes}-minute run`;
    const kills = [...new Set(timeline.kills.map((k) => k.t))];
    const charts = config.out === null ? [] : writeCharts(config.plotsDir, store, label, phases, sampler.samples, kills);
    const run: StoreRun = {
      store,
      date: new Date(started).toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      config,
      durationS: (Date.now() - started) / 1000,
      machine,
      loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
      server: pgServer === null || serverSettings === null ? null : { origin: pgServer.origin, settings: pickReported(serverSettings) },
      phases,
      timeline,
      drained,
      verdicts,
      charts,
      resultsFile: relative(REPO, resultsFile),
      pollIntervalMs: pollFor(config, store),
    };
    appendFileSync(resultsFile, JSON.stringify({ type: 'summary', timeline, drained, verdicts }) + '\n');
    return run;
  } finally {
    for (const { name, stop } of stack.reverse()) {
      await stop().catch((error: unknown) => log(`stopping ${name} failed: ${String(error)}`));
    }
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
