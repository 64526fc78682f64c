/**
 * npm run bench [-- options]
 *
 * Vigil's SQLite store against the Python reference on the same work, in
 * one run, at the same durability (WAL, synchronous FULL). Prints a short
 * table and rewrites the "SQLite engine" section of BENCHMARKS.md.
 *
 *   --reference <dir>   where inbox.py lives (default ../shared/reference)
 *   --python <exe>      default python3
 *   --out <file>        default BENCHMARKS.md in the repository
 *   --strict            exit 1 when a target is missed
 *   --only service      only the service family (bench/service.ts: signed webhooks over HTTP against a bare
 *                       node:http server, the worker pool's idle-to-work tick); it runs whole, so it still
 *                       writes its own "## Service" section (not with --quick)
 *   --only dashboard    only the dashboard family (bench/dashboard.ts: the overview and an inbox page with 10,000
 *                       inboxes and 100,000 events, on both stores); writes its own "## Dashboard" section
 *   --only many-users   only the many-users family (bench/many-users.ts: a dispatcher pass with 1,000 of 10,000
 *                       inboxes in quiet hours, readyInboxes over 10,000 debounced inboxes, each against the same
 *                       without settings, on both stores); writes its own "## Many users" section
 *   --only retention    only the retention family (bench/retention.ts: 1,000,000 webhooks through one SQLite inbox over
 *                       ten simulated days with and without a one-day retention; ingest with and without a Pruner at
 *                       work, on SQLite and PostgreSQL); writes its own "## Retention" section
 *   --only memory       only the memory family (bench/memory.ts: the resident memory of a real `vigil serve`, the built
 *                       package under plain node, with 10,000 and 100,000 idle inboxes on SQLite: started, after a burst
 *                       of webhooks, and restarted re-deriving the ready index); writes its own "## Memory" section
 *   --only adapters     only the adapters family (bench/adapters.ts: the one-event run cycle through a real `vigil serve`
 *                       with each adapter (Claude Agent SDK, AI SDK, MCP) against its local fake, beside Vigil's own
 *                       tool loop on the same fake); writes its own "## Adapters" section
 *   --only spend        only the spend family (bench/spend.ts: the one-event run cycle with usage recorded and a budget
 *                       judged, against the same cycle without, on SQLite and PostgreSQL); writes its own "## Spend" section
 *   --only postgres     only the PostgreSQL family (bench/postgres-vs-graphile.ts: Vigil's PostgreSQL store against
 *                       graphile-worker on one server, a throwaway one unless DATABASE_URL is set); it runs whole and
 *                       writes its own "## PostgreSQL vs graphile-worker" section (not with --quick or --pg-setting)
 * Diagnostics (print only, never write the report):
 *   --quick             a smoke run of every step; its figures mean nothing
 *   --only a,b          some families: ingest (with ingestMany), cycle, scheduler, dispatch
 *   --synchronous normal  both sides without fsync per commit: what is left is CPU and writes
 *   --pg-setting name=value  a setting of the PostgreSQL family's throwaway server (repeatable), e.g. fsync=off
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ADAPTERS_FAMILY, runAdaptersFamily } from './adapters.js';
import { runSpendFamily, SPEND_FAMILY } from './spend.js';
import { DASHBOARD_FAMILY, runDashboardFamily } from './dashboard.js';
import { describeMachine } from './machine.js';
import { MANY_USERS_FAMILY, runManyUsersFamily } from './many-users.js';
import { MEMORY_FAMILY, runMemoryFamily } from './memory.js';
import { DEFAULT_REFERENCE_DIR, PythonReferenceSide, referenceUnavailable, type PythonInfo } from './python-reference.js';
import { renderConsole, renderSection, writeSection, type RunInfo } from './report.js';
import { POSTGRES_FAMILY, runPostgresVsGraphile } from './postgres-vs-graphile.js';
import { quietDisk } from './quiet-disk.js';
import { RETENTION_FAMILY, runRetentionFamily } from './retention.js';
import { runServiceFamily, SERVICE_FAMILY } from './service.js';
import { VigilSqliteSide } from './sqlite-engine.js';
import { FAMILIES, runSuite, type Family } from './suite.js';
import { checkTargets } from './targets.js';
import { elapsedSeconds, startTimer } from './timing.js';
import { FULL_PLAN, QUICK_PLAN, type BenchSide } from './workload.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      reference: { type: 'string', default: DEFAULT_REFERENCE_DIR },
      python: { type: 'string', default: 'python3' },
      out: { type: 'string', default: join(REPO, 'BENCHMARKS.md') },
      strict: { type: 'boolean', default: false },
      only: { type: 'string' },
      synchronous: { type: 'string', default: 'full' },
      'pg-setting': { type: 'string', multiple: true, default: [] },
    },
  });
  const plan = values.quick ? QUICK_PLAN : FULL_PLAN;
  const synchronous = values.synchronous;
  if (synchronous !== 'full' && synchronous !== 'normal') throw new Error('--synchronous is full or normal');
  const started = startTimer();
  const log = (line: string): void => {
    process.stderr.write(`[bench ${elapsedSeconds(started).toFixed(0).padStart(3)} s] ${line}\n`);
  };
  const asked = (family: string): boolean => values.only?.split(',').some((f) => f.trim() === family) ?? synchronous === 'full';
  const pgSettings = Object.fromEntries(values['pg-setting'].map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const out = values.quick ? null : resolve(values.out);

  // Families that run whole, in their own stores or processes, and write their own section; each answers
  // whether its targets held.
  const sectionFamilies: { name: string; run: () => Promise<boolean> }[] = [
    { name: MANY_USERS_FAMILY, run: () => runManyUsersFamily({ quick: values.quick, out, log }) },
    { name: DASHBOARD_FAMILY, run: () => runDashboardFamily({ quick: values.quick, out, log }) },
    { name: RETENTION_FAMILY, run: () => runRetentionFamily({ quick: values.quick, out, log }) },
    { name: MEMORY_FAMILY, run: () => runMemoryFamily({ quick: values.quick, out, log }) },
    {
      name: POSTGRES_FAMILY,
      run: () =>
        runPostgresVsGraphile({ quick: values.quick, out: Object.keys(pgSettings).length > 0 ? null : out, serverSettings: pgSettings, log }),
    },
    { name: SERVICE_FAMILY, run: () => runServiceFamily({ quick: values.quick, out: resolve(values.out), write: !values.quick, log }) },
    { name: ADAPTERS_FAMILY, run: () => runAdaptersFamily({ quick: values.quick, out, log }) },
    { name: SPEND_FAMILY, run: () => runSpendFamily({ quick: values.quick, out, log }) },
  ];
  const sectionNames = new Set(sectionFamilies.map((f) => f.name));
  const only = new Set(
    (values.only ?? FAMILIES.join(','))
      .split(',')
      .map((f) => f.trim())
      .filter((f) => !sectionNames.has(f)) as Family[],
  );
  for (const family of only) if (!FAMILIES.includes(family)) throw new Error(`--only: unknown family ${family}; known: ${FAMILIES.join(', ')}`);
  const diagnostic = values.quick || values.only !== undefined || synchronous !== 'full';

  let sectionsFailed = false;
  for (const family of sectionFamilies) {
    if (!asked(family.name)) continue;
    await quietDisk(log);
    if (!(await family.run())) sectionsFailed = true;
  }
  if (only.size === 0) return values.strict && sectionsFailed ? 1 : 0;

  const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  let python: PythonReferenceSide | null = null;
  const abort = (): void => {
    python?.kill();
    rmSync(scratch, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);

  try {
    log(`scratch directory ${scratch}`);
    const machine = describeMachine(scratch);
    const vigil = new VigilSqliteSide(scratch, synchronous);
    const settings = await vigil.settings();
    const sides: BenchSide[] = [vigil];

    const referenceDir = resolve(values.reference);
    let pythonInfo: { info: PythonInfo } | { unavailable: string };
    const missing = referenceUnavailable(referenceDir, values.python);
    if (missing === null) {
      const started = await PythonReferenceSide.start(values.python, referenceDir, scratch, synchronous === 'full' ? null : synchronous);
      python = started.side;
      pythonInfo = { info: started.info };
      sides.push(python);
      log(`Python reference: ${started.info.reference}`);
    } else {
      pythonInfo = { unavailable: missing };
      log(`the Python reference is not available (${missing}): measuring Vigil only`);
    }

    const results = await runSuite(plan, sides, log, only, scratch);
    await vigil.close();
    await python?.close();
    python = null;

    const run: RunInfo = {
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      plan,
      planName: values.quick ? 'quick' : 'full',
      machine,
      vigil: settings,
      python: pythonInfo,
      results,
      targets: checkTargets(results),
      durationSeconds: elapsedSeconds(started),
      loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
    };
    process.stdout.write(renderConsole(run) + '\n');
    if (diagnostic) {
      log(`diagnostic run (${[values.quick ? '--quick' : '', values.only !== undefined ? '--only' : '', synchronous !== 'full' ? `synchronous ${synchronous}` : ''].filter(Boolean).join(', ')}): BENCHMARKS.md not written`);
    } else {
      writeSection(resolve(values.out), renderSection(run));
      log(`wrote ${resolve(values.out)}`);
    }
    return values.strict && (sectionsFailed || run.targets.some((t) => t.pass === false)) ? 1 : 0;
  } finally {
    python?.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
