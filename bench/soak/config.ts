/**
 * What a soak run is asked to do: the command line turned into one config,
 * with the defaults and the reasons for them.
 */
import { parseArgs } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** --retention's default: two minutes (SoakConfig.retentionMs says why). */
export const DEFAULT_RETENTION_MS = 120_000;

export type StoreKind = 'postgres' | 'sqlite';

export type GraphileMode = 'beside' | 'after' | 'off';

export interface SoakConfig {
  /** The command line as given, for the report. */
  args: string[];
  stores: StoreKind[];
  /** The whole plan (every phase), in minutes; the phases share it by fixed weights (phases.ts). */
  minutes: number;
  /** Before the plan, at the steady rate, sampled but not judged (phases.ts says why). */
  warmupMs: number;
  /** Offered events per second in the steady phases (the surge offers 1.5x). */
  rate: number;
  inboxes: number;
  /** Worker child processes per side. */
  workers: number;
  /** Inboxes a Vigil child runs at once (WorkerPool concurrency); graphile's concurrency per child too. */
  concurrency: number;
  /**
   * Vigil's lease (store option leaseTtlMs). Shorter than the store's 120 s
   * default so that an inbox a SIGKILLed worker held comes back (after at
   * most one lease) well inside the kill phase, not after it.
   */
  leaseTtlMs: number;
  /** The safety poll of the children's worker pools and dispatchers; null: the store's default. */
  pollIntervalMs: number | null;
  sampleMs: number;
  /** One SIGKILL per side this often during the kill phase. */
  killEveryMs: number;
  /**
   * graphile-worker on PostgreSQL: `after` Vigil, in a second pass on the
   * same server (the default: twice the time, and neither slows the other),
   * `beside` it in one pass (both see the same horizon, disk and
   * neighbours, and share the cores), or `off`. Beside, on the shared
   * 2-core machine, Vigil's p50 went from 60-100 ms alone to seconds while
   * graphile's stayed near 20 ms: the comparison measured mostly how each
   * side takes the other's load.
   */
  graphile: GraphileMode;
  /** BENCHMARKS.md; null: print only, write neither the section nor the plots. */
  out: string | null;
  plotsDir: string;
  resultsDir: string;
  /** Exit 1 when a target (not only an invariant) is missed. */
  strict: boolean;
  /** Diagnostics: settings of the throwaway PostgreSQL server (a run with any is print-only). */
  pgSettings: Record<string, string>;
  /**
   * Vigil's retention for done events and sent messages (store option
   * `retention`), or null to keep everything. Each worker process then runs
   * a Pruner at its defaults, as `vigil serve` does. On by default, at two
   * minutes: the soak stands for months of running, and a service that runs
   * for months prunes; two minutes makes a 30-minute run prune from its
   * third minute on, so the tables reach the size they keep (about two
   * minutes of events, plus the tombstones' keys) well inside the first
   * steady phase, and every later phase is measured with pruning at work.
   */
  retentionMs: number | null;
}

const USAGE = `npm run soak -- [options]

  --store postgres|sqlite|both   default postgres (PostgreSQL: DATABASE_URL, else a throwaway server)
  --minutes N                    the whole phase plan, default 10 (the issue's target run: 30)
  --warmup-seconds N             before the plan, at the steady rate, not judged; default 30
  --rate N                       offered events/s per side in the steady phases, default 50 (the surge: 1.5x)
  --inboxes N                    default 200
  --workers N                    worker processes per side, default 2
  --concurrency N                runs at once per worker process, default 8
  --lease-ttl MS                 Vigil's leaseTtlMs, default 30000
  --poll-ms MS                   the children's safety poll; default 250 on SQLite (its wake-up hints do not
                                 cross processes), the runtime's 5000 on PostgreSQL (LISTEN/NOTIFY wakes them)
  --sample-seconds N             default 10
  --kill-every-seconds N         default 20
  --graphile after|beside|off    graphile-worker on PostgreSQL: in a second pass after Vigil on the same server
                                 (default; twice the time), in the same pass (they share the cores), or not at all
  --print-only                   write neither BENCHMARKS.md nor docs/soak/ (the JSON lines are still written)
  --out FILE                     default BENCHMARKS.md in the repository
  --retention MS|off             Vigil keeps done events and sent messages this long (store option retention), and
                                 each worker process prunes as vigil serve does (a Pruner at its defaults); default
                                 120000 (2 minutes); off keeps everything
  --strict                       exit 1 when a target is missed, not only when an event is lost or done twice
Diagnostics (print only, never write the report):
  --pg-setting name=value        a setting of the throwaway PostgreSQL server (repeatable), e.g. synchronous_commit=off`;

export function parseConfig(argv: string[]): SoakConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      store: { type: 'string', default: 'postgres' },
      minutes: { type: 'string', default: '10' },
      'warmup-seconds': { type: 'string', default: '30' },
      rate: { type: 'string', default: '50' },
      inboxes: { type: 'string', default: '200' },
      workers: { type: 'string', default: '2' },
      concurrency: { type: 'string', default: '8' },
      'lease-ttl': { type: 'string', default: '30000' },
      'poll-ms': { type: 'string' },
      'sample-seconds': { type: 'string', default: '10' },
      'kill-every-seconds': { type: 'string', default: '20' },
      graphile: { type: 'string', default: 'after' },
      'print-only': { type: 'boolean', default: false },
      out: { type: 'string', default: join(REPO, 'BENCHMARKS.md') },
      strict: { type: 'boolean', default: false },
      'pg-setting': { type: 'string', multiple: true, default: [] },
      retention: { type: 'string', default: String(DEFAULT_RETENTION_MS) },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    process.exit(0);
  }
  const stores: StoreKind[] = values.store === 'both' ? ['postgres', 'sqlite'] : [values.store as StoreKind];
  if (!stores.every((s) => s === 'postgres' || s === 'sqlite')) usage(`--store is postgres, sqlite or both, got ${values.store}`);
  const pgSettings: Record<string, string> = {};
  for (const pair of values['pg-setting']) {
    const at = pair.indexOf('=');
    if (at <= 0) usage(`--pg-setting takes name=value, got ${pair}`);
    pgSettings[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const printOnly = values['print-only'] || Object.keys(pgSettings).length > 0;
  const graphile = values.graphile as GraphileMode;
  if (!['beside', 'after', 'off'].includes(graphile)) usage(`--graphile is beside, after or off, got ${values.graphile}`);
  return {
    args: argv,
    stores,
    minutes: number('--minutes', values.minutes, 1, 24 * 60),
    warmupMs: number('--warmup-seconds', values['warmup-seconds'], 0, 3_600) * 1_000,
    rate: number('--rate', values.rate, 1, 10_000),
    inboxes: number('--inboxes', values.inboxes, 1, 100_000, true),
    workers: number('--workers', values.workers, 1, 32, true),
    concurrency: number('--concurrency', values.concurrency, 1, 256, true),
    leaseTtlMs: number('--lease-ttl', values['lease-ttl'], 1_000, 600_000, true),
    pollIntervalMs: values['poll-ms'] === undefined ? null : number('--poll-ms', values['poll-ms'], 10, 60_000, true),
    sampleMs: number('--sample-seconds', values['sample-seconds'], 1, 600) * 1_000,
    killEveryMs: number('--kill-every-seconds', values['kill-every-seconds'], 1, 3_600) * 1_000,
    graphile,
    out: printOnly ? null : resolve(values.out),
    plotsDir: join(REPO, 'docs', 'soak'),
    resultsDir: join(REPO, 'bench', 'results'),
    strict: values.strict,
    pgSettings,
    retentionMs: values.retention === 'off' ? null : number('--retention', values.retention, 1_000, 365 * 24 * 3_600_000, true),
  };
}

/** The poll a store's children use unless --poll-ms says otherwise. */
export function pollFor(config: SoakConfig, store: StoreKind): number | null {
  if (config.pollIntervalMs !== null) return config.pollIntervalMs;
  return store === 'sqlite' ? 250 : null;
}

function number(flag: string, text: string, min: number, max: number, integer = false): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    usage(`${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${text}`);
  }
  return value;
}

function usage(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}
