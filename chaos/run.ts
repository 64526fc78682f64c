/**
 * `npm run chaos`: the chaos harness from the command line.
 *
 *   npm run chaos                                  the long run on SQLite, then PostgreSQL
 *   npm run chaos -- --store sqlite --size short   one store, the short run
 *   npm run chaos -- --events 20000 --kills 200 --window 300
 *
 * PostgreSQL: --url, else DATABASE_URL, else a throwaway server is started
 * (and stopped) for the run. Exits 1 if any invariant broke.
 */
import { parseArgs } from 'node:util';
import { PRESETS, type ChaosConfig, type Preset, type StoreKind } from './config.js';
import { runChaos } from './harness.js';
import { formatReport } from './table.js';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'both' },
    size: { type: 'string', default: 'long' },
    url: { type: 'string' },
    events: { type: 'string' },
    inboxes: { type: 'string' },
    workers: { type: 'string' },
    kills: { type: 'string' },
    window: { type: 'string' },
    seed: { type: 'string' },
    'at-most-once': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});

const size = values.size as Preset;
if (!(size in PRESETS)) throw new Error(`--size is short or long, got ${values.size}`);
const stores: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];
if (!stores.every((s) => s === 'sqlite' || s === 'postgres')) throw new Error(`--store is sqlite, postgres or both, got ${values.store}`);

const int = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number.parseInt(text, 10));
const base = PRESETS[size];
const events = int(values.events) ?? base.events;
const kills = int(values.kills) ?? base.kills;
const overrides: Partial<ChaosConfig> = {
  events,
  kills,
  // Special events scale with the event count, as in the preset.
  ...(values.events === undefined
    ? {}
    : {
        poison: Math.max(1, Math.round((base.poison * events) / base.events)),
        throwing: Math.max(1, Math.round((base.throwing * events) / base.events)),
        flaky: Math.round((base.flaky * events) / base.events),
        slow: Math.max(1, Math.round((base.slow * events) / base.events)),
        asks: Math.round((base.asks * events) / base.events),
      }),
  ...(int(values.inboxes) === undefined ? {} : { inboxes: int(values.inboxes)! }),
  ...(int(values.workers) === undefined ? {} : { workers: int(values.workers)! }),
  ...(int(values.window) === undefined ? {} : { windowMs: int(values.window)! * 1_000 }),
  ...(int(values.seed) === undefined ? {} : { seed: int(values.seed)! }),
};

let failed = false;
for (const store of stores) {
  let stopServer: (() => Promise<void>) | undefined;
  let url = values.url ?? process.env.DATABASE_URL;
  if (store === 'postgres' && (url === undefined || url === '')) {
    const { startThrowawayPostgres } = await import('../test/setup/throwaway-postgres.js');
    const server = await startThrowawayPostgres();
    url = server.url;
    stopServer = () => server.stop();
  }
  try {
    const config: ChaosConfig = { ...base, ...overrides, store, atMostOnce: values['at-most-once'], keep: values.keep, verbose: !values.quiet, ...(store === 'postgres' ? { url } : {}) };
    process.stderr.write(`chaos: ${store}, ${config.events} events, ${config.kills} kills, ${config.workers} workers, window ${config.windowMs / 1000} s\n`);
    const report = await runChaos(config);
    process.stdout.write(`\n${formatReport(report)}\n\n`);
    if (!report.passed) failed = true;
  } finally {
    await stopServer?.();
  }
}
process.exit(failed ? 1 : 0);
