/**
 * The dashboard family (issue 6): with 10,000 inboxes and 100,000 events in
 * one store, how long the server takes to render the overview and an inbox
 * page. Measured in-process through the HTTP app (`app.request`: routing,
 * sign-in check, store reads, HTML), so the figure is server time without
 * the network. Both stores, one after the other; PostgreSQL on a throwaway
 * server unless DATABASE_URL is set.
 *
 * The peers, in the same run on the same data: the overview against the
 * naive way to build it (every inbox's `stats()`, what a dashboard without
 * `listInboxes` would do), and the page of the biggest inbox (10,000
 * events) against the page of a small one (10 events).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseConfig } from '../src/config/load-config.js';
import { createServiceApp, httpDepsOf } from '../src/service/service.js';
import { createLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { RuntimeEvents } from '../src/events.js';
import { openStore, type Store } from '../src/index.js';
import { sqliteBackendOf } from '../src/store/sqlite/sqlite-store.js';
import { writeBenchmarkSection } from './benchmarks-file.js';
import { describeMachine } from './machine.js';
import { openBenchServer } from './postgres-server.js';

export const DASHBOARD_FAMILY = 'dashboard';
export const DASHBOARD_HEADING = '## Dashboard';
const GOAL_MS = 300;
const TOKEN = 'bench-token-0123456789abcdef01234567';

interface Plan {
  inboxes: number;
  events: number;
  bigInboxEvents: number;
  repetitions: number;
}

const FULL: Plan = { inboxes: 10_000, events: 100_000, bigInboxEvents: 10_000, repetitions: 15 };
const QUICK: Plan = { inboxes: 200, events: 2_000, bigInboxEvents: 500, repetitions: 3 };

interface Timing {
  median: number;
  p95: number;
}

interface StoreRun {
  store: string;
  seedSeconds: number;
  overview: Timing;
  overviewAttention: Timing;
  overviewSearch: Timing;
  naiveOverview: Timing;
  bigInbox: Timing;
  smallInbox: Timing;
}

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] as number, p95: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] as number };
}

async function measure(repetitions: number, run: () => Promise<unknown>): Promise<Timing> {
  await run(); // warm: statements prepared, files open
  const samples: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return timing(samples);
}

/** Stores `count` events in one inbox and runs them all to done. */
async function fillInbox(store: Store, id: string, count: number): Promise<void> {
  const inbox = store.inbox(id);
  for (let offset = 0; offset < count; offset += 1_000) {
    const n = Math.min(1_000, count - offset);
    await inbox.ingestMany(
      Array.from({ length: n }, (_, k) => ({ source: k % 3 === 0 ? 'github' : 'chat', sourceId: `e-${offset + k}`, payload: { text: `event ${offset + k}`, n: offset + k } })),
    );
  }
  const gen = (await inbox.acquire('bench')) as number;
  for (let batch = await inbox.claimBatch('bench', gen); batch.length > 0; batch = await inbox.claimBatch('bench', gen)) {
    await inbox.finish('bench', gen, batch.map((e) => e.id), { messages: [] });
  }
  await inbox.release('bench', gen);
}

/** What makes the overview worth reading: a dead event in one inbox of 100, a held reply or a pending approval in some. */
async function decorate(store: Store, id: string, index: number): Promise<void> {
  const inbox = store.inbox(id);
  if (index % 100 === 0 || index % 50 === 1) {
    await inbox.ingest({ source: 'stripe', sourceId: 'extra', payload: { text: 'one more' } });
    const gen = (await inbox.acquire('bench')) as number;
    const batch = await inbox.claimBatch('bench', gen);
    const outcome = index % 100 === 0 ? { error: 'poison', dead: true } : { messages: ['held reply'] };
    await inbox.finish('bench', gen, batch.map((e) => e.id), outcome);
    await inbox.release('bench', gen);
  }
  if (index % 70 === 2) await inbox.requestApproval({ id: 'refund', expiresInMs: 3_600_000, action: { refund: index } });
}

/**
 * 10,000 inboxes and 100,000 events: one big inbox of `bigInboxEvents`, the
 * rest spread evenly, every run done, then decorated. On SQLite the small
 * inboxes are copies of one filled file (creating 10,000 files through the
 * store costs ~30 ms each in WAL switches and migrations: minutes of setup
 * that measure nothing), indexed with rebuildReadyIndex; on PostgreSQL
 * every event goes through the store.
 */
async function seed(store: Store, plan: Plan, log: (line: string) => void, copyTemplate: ((ids: string[]) => Promise<void>) | null): Promise<void> {
  const small = plan.inboxes - 1;
  const perInbox = Math.floor((plan.events - plan.bigInboxEvents) / small);
  const ids = Array.from({ length: small }, (_, i) => `user-${String(i).padStart(5, '0')}`);
  await fillInbox(store, 'big-inbox', plan.bigInboxEvents);
  if (copyTemplate !== null) {
    await copyTemplate(ids);
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < ids.length) {
          const i = next++;
          await fillInbox(store, ids[i] as string, perInbox);
          if ((i + 1) % 2_000 === 0) log(`dashboard: filled ${i + 1} of ${ids.length} inboxes`);
        }
      }),
    );
  }
  for (const [i, id] of ids.entries()) await decorate(store, id, i);
}

/** SQLite: one inbox filled through the store, closed, and copied under every id. */
async function sqliteTemplate(scratch: string, dataDir: string, perInbox: number): Promise<(ids: string[]) => Promise<void>> {
  const templateDir = join(scratch, 'template');
  const template = await openStore(`sqlite:${templateDir}`, { synchronous: 'normal' });
  await fillInbox(template, 'template', perInbox);
  await template.close(); // the last connection checkpoints: the .db file alone holds it all
  return async (ids) => {
    for (const id of ids) copyFileSync(join(templateDir, 'template.db'), join(dataDir, `${id}.db`));
  };
}

/** `copy`: how this store fills the small inboxes in bulk (SQLite), or null to fill each through the store. */
async function runOnStore(name: string, store: Store, plan: Plan, log: (line: string) => void, copy: ((ids: string[]) => Promise<void>) | null): Promise<StoreRun> {
  const seedStart = performance.now();
  await seed(store, plan, log, copy);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  log(`dashboard (${name}): seeded ${plan.inboxes} inboxes, ${plan.events} events in ${seedSeconds.toFixed(0)} s`);
  const app = createServiceApp({
    ...httpDepsOf(parseConfig({ token: TOKEN }, 'bench config', {})),
    store,
    metrics: createMetrics({ defaultMetrics: false }),
    logger: createLogger({ level: 'silent' }),
    events: new RuntimeEvents(),
    publicUrl: 'http://127.0.0.1',
  });
  const login = await app.hono.request('/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body: `token=${TOKEN}` });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const page = async (path: string): Promise<void> => {
    const response = await app.hono.request(path, { headers: { cookie } });
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
    await response.text();
  };
  const ids = await store.inboxes();
  return {
    store: name,
    seedSeconds,
    overview: await measure(plan.repetitions, () => page('/')),
    overviewAttention: await measure(plan.repetitions, () => page('/?attention=1')),
    overviewSearch: await measure(plan.repetitions, () => page('/?q=user-012')),
    naiveOverview: await measure(Math.max(3, Math.floor(plan.repetitions / 5)), async () => {
      for (const id of ids) await store.inbox(id).stats();
    }),
    bigInbox: await measure(plan.repetitions, () => page('/inbox/big-inbox')),
    smallInbox: await measure(plan.repetitions, () => page('/inbox/user-00005')),
  };
}

const ms = (t: Timing): string => `${t.median.toFixed(1)} ms (p95 ${t.p95.toFixed(1)})`;

function render(runs: StoreRun[], plan: Plan, machine: string, seconds: number): string {
  const rows = runs.flatMap((run) => [
    `| ${run.store} | overview, first page | ${ms(run.overview)} | ${run.overview.median <= GOAL_MS ? 'yes' : '**no**'} | ${(run.naiveOverview.median / run.overview.median).toFixed(0)}x faster than every inbox's stats() (${ms(run.naiveOverview)}) |`,
    `| ${run.store} | overview, needs attention | ${ms(run.overviewAttention)} | ${run.overviewAttention.median <= GOAL_MS ? 'yes' : '**no**'} | |`,
    `| ${run.store} | overview, search | ${ms(run.overviewSearch)} | ${run.overviewSearch.median <= GOAL_MS ? 'yes' : '**no**'} | |`,
    `| ${run.store} | inbox page, ${plan.bigInboxEvents.toLocaleString('en')} events | ${ms(run.bigInbox)} | ${run.bigInbox.median <= GOAL_MS ? 'yes' : '**no**'} | ${(run.bigInbox.median / run.smallInbox.median).toFixed(2)}x the page of a ${Math.floor((plan.events - plan.bigInboxEvents) / (plan.inboxes - 1))}-event inbox (${ms(run.smallInbox)}) |`,
  ]);
  return `${DASHBOARD_HEADING}

\`npm run bench -- --only dashboard\` (bench/dashboard.ts), ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${seconds.toFixed(0)} s.
${plan.inboxes.toLocaleString('en')} inboxes and ${plan.events.toLocaleString('en')} events in one store (one inbox of
${plan.bigInboxEvents.toLocaleString('en')}, the rest spread evenly; one inbox in 100 with a dead event, some with a
pending approval or a held message). Server time of a signed-in \`GET\`,
in-process through the HTTP app (routing, cookie check, store reads, HTML),
median of ${plan.repetitions} after a warm-up. Goal: under ${GOAL_MS} ms each. Machine: ${machine}.
Load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(', ')}.

| store | page | server time | under ${GOAL_MS} ms | peer in the same run |
| --- | --- | --- | --- | --- |
${rows.join('\n')}

Seeding took ${runs.map((run) => `${run.seedSeconds.toFixed(0)} s (${run.store})`).join(', ')}; it is not measured.
`;
}

export async function runDashboardFamily(options: { quick: boolean; out: string | null; log: (line: string) => void }): Promise<boolean> {
  const plan = options.quick ? QUICK : FULL;
  const started = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-dashboard-'));
  const runs: StoreRun[] = [];
  try {
    const machine = describeMachine(scratch);
    // Seeding at synchronous NORMAL: the figures are reads, and 10,000 fsyncs of setup measure nothing.
    const dataDir = join(scratch, 'sqlite');
    const copy = await sqliteTemplate(scratch, dataDir, Math.floor((plan.events - plan.bigInboxEvents) / (plan.inboxes - 1)));
    const sqlite = await openStore(`sqlite:${dataDir}`, { synchronous: 'normal' });
    try {
      const copyAndIndex = async (ids: string[]): Promise<void> => {
        await copy(ids);
        await sqliteBackendOf(sqlite).rebuildReadyIndex();
      };
      runs.push(await runOnStore('SQLite', sqlite, plan, options.log, copyAndIndex));
    } finally {
      await sqlite.close();
    }
    const server = await openBenchServer();
    try {
      const schema = `dashboard_bench_${process.pid}`;
      const pgStore = await openStore(server.url, { schema });
      try {
        runs.push(await runOnStore('PostgreSQL', pgStore, plan, options.log, null));
      } finally {
        await pgStore.close();
        await server.admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      }
    } finally {
      await server.stop();
    }
    const section = render(runs, plan, `${machine.cpu}, ${machine.cores} cores`, (performance.now() - started) / 1000);
    process.stdout.write(section + '\n');
    if (options.out !== null) {
      writeBenchmarkSection(options.out, DASHBOARD_HEADING, section);
      options.log(`wrote the dashboard section of ${options.out}`);
    }
    return runs.every((run) => [run.overview, run.overviewAttention, run.overviewSearch, run.bigInbox].every((t) => t.median <= GOAL_MS));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
