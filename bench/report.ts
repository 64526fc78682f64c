/**
 * BENCHMARKS.md: one `## ` section per benchmark family. This run rewrites
 * only the "SQLite engine" section (its heading up to the next `## `
 * heading), so other families' sections (PostgreSQL, ...) are kept.
 */
import { writeBenchmarkSection } from './benchmarks-file.js';
import type { Machine } from './machine.js';
import type { PythonInfo } from './python-reference.js';
import type { SqliteSettings } from './sqlite-engine.js';
import { FLOOR, type Figure, type Results } from './suite.js';
import { PYTHON, VIGIL, type TargetCheck } from './targets.js';
import { median } from './timing.js';
import type { Plan } from './workload.js';

export const SECTION_HEADING = '## SQLite engine';


export interface RunInfo {
  date: string;
  plan: Plan;
  planName: string;
  machine: Machine;
  vigil: SqliteSettings;
  /** The reference's own report, or why it did not run. */
  python: { info: PythonInfo } | { unavailable: string };
  results: Results;
  targets: TargetCheck[];
  durationSeconds: number;
  loadAtEnd: number[];
}

const SYNC_NAMES = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];
const syncName = (n: number): string => `${SYNC_NAMES[n] ?? '?'} (${n})`;

function fmt(value: number, unit: string): string {
  if (unit === 'ms') return value < 10 ? value.toFixed(3) : value.toFixed(1);
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
}

function cell(figure: Figure, side: string): string {
  const samples = figure.samples.get(side);
  if (samples === undefined || samples.length === 0) return '–';
  const mid = fmt(median(samples), figure.unit);
  if (samples.length === 1) return mid;
  return `${mid} (${fmt(Math.min(...samples), figure.unit)}–${fmt(Math.max(...samples), figure.unit)})`;
}

/** How many times as fast Vigil is (paired per repetition; for times: reference time ÷ Vigil time). */
export function speedup(results: Results, figure: Figure): number | null {
  return results.ratio(figure.key, VIGIL, figure.key, PYTHON);
}

const x = (value: number | null): string => (value === null ? '–' : `${value.toFixed(2)}x`);
const verdict = (pass: boolean | null): string => (pass === null ? 'not measured' : pass ? 'PASS' : 'FAIL');

function targetValue(t: TargetCheck): string {
  if (t.value === null) return '–';
  return t.unit === 'ms' ? `${t.value.toFixed(3)} ms` : `${t.value.toFixed(2)}x`;
}

/** Inner ratios per side: how each implementation's cost grows. */
function innerRatios(r: Results, side: string): { name: string; value: number | null }[] {
  // For times, ratio(small, big) is the big one's time ÷ the small one's.
  return [
    { name: 'ingestMany per event ÷ single ingest (higher is better)', value: r.ratio('ingestMany', side, 'ingest', side) },
    { name: 'run cycles/s after done rows ÷ on an empty inbox (1.0 = no slowdown)', value: r.ratio('cycle1done', side, 'cycle1', side) },
    {
      name: 'scheduler pass time, 1,000 of 100,000 due ÷ 1,000 of 1,000 (1.0 = cost follows due work)',
      value: r.ratio('schedSmall', side, 'schedBig', side),
    },
    { name: 'idle pass time over 100,000 ÷ over 1,000 timers (1.0 = cost follows due work)', value: r.ratio('idleSmall', side, 'idleBig', side) },
  ];
}

export function renderSection(run: RunInfo): string {
  const { machine, vigil, python, results, targets, plan } = run;
  const hasPython = 'info' in python;
  const lines: string[] = [];
  lines.push(SECTION_HEADING, '');
  lines.push(
    `Written by \`npm run bench\` (bench/run.ts) on ${run.date}; ${run.planName} plan, ${run.durationSeconds.toFixed(0)} s in all.`,
    'Vigil against the Python reference (`../shared/reference/inbox.py`, imported at run time, never copied) on the same',
    'work, in one run, at the same durability setting.',
    '',
  );
  if (!hasPython) {
    lines.push(
      `**The Python reference was not available (${python.unavailable}), so only Vigil's figures were measured;**`,
      '**the targets that compare against it are marked "not measured".**',
      '',
    );
  }

  lines.push('### Machine', '');
  lines.push(
    `- CPU: ${machine.cpu}, ${machine.cores} cores; ${machine.memoryGiB} GiB memory; ${machine.os}`,
    `- Node.js ${machine.node}, better-sqlite3 ${machine.betterSqlite3} (SQLite ${vigil.sqlite})`,
    hasPython
      ? `- Python ${python.info.python} (sqlite3 module, SQLite ${python.info.sqlite})`
      : '- Python reference: not run',
    `- Disk (scratch directory): ${machine.disk}; one 4 KiB append + fdatasync: ${machine.fdatasyncMs.toFixed(3)} ms (median of 200)`,
    `- One-row SQLite commit there (better-sqlite3, WAL, synchronous=FULL, nothing else in the transaction): ${machine.sqliteCommitMs.toFixed(3)} ms (median of 500): the floor under a single-event ingest at that durability, whatever the code around it (at most ~${Math.round(1000 / machine.sqliteCommitMs).toLocaleString('en-US')} events/s)`,
    `- Load average (1/5/15 min) at start ${machine.loadAtStart.join(' / ')}, at end ${run.loadAtEnd.join(' / ')}`,
    '',
  );

  lines.push('### Settings', '');
  lines.push(
    `- Vigil: store defaults. Inbox file journal_mode=${vigil.journalMode.toUpperCase()}, synchronous=${syncName(vigil.synchronous)}`,
    '  (read back from the connection), one `BEGIN IMMEDIATE` transaction per operation; batchLimit 100,',
    '  leaseTtlMs 120000. Its ready index (`_vigil-ready.db`, a hint file) is written at synchronous NORMAL.',
  );
  if (hasPython) {
    const info = python.info;
    lines.push(
      `- Python reference: its own \`connect()\`: journal_mode=${info.journal_mode.toUpperCase()}, synchronous=${syncName(info.synchronous)}` +
        (info.forced_synchronous
          ? ` (set explicitly: this SQLite build defaults to ${syncName(info.default_synchronous)})`
          : ' (SQLite\'s default; the reference does not set it)') +
        ', autocommit outside its `BEGIN IMMEDIATE` blocks.',
    );
  }
  lines.push(
    '- Both sides: a fresh file in a fresh temporary directory per measurement (removed afterwards), a fake clock',
    '  (Vigil: `createFakeClock`, milliseconds; reference: integer `now`, seconds), the same events, keys and payloads.',
    '- Before each group of measurements (and each family of the run) the disk is settled: `sync`, then a wait until',
    '  the kernel holds under 32 MB of dirty and writeback pages (bench/quiet-disk.ts), so no group times its commits',
    "  against an earlier family's writeback.",
    '',
  );

  lines.push('### Figures', '');
  lines.push(
    `Median of repetitions (ingest: ${plan.ingestReps}; run cycles: ${plan.cycleReps}; scheduler passes: ${plan.schedulerPasses}; idle passes: ${plan.idlePasses}; dispatch of ${plan.dispatchMessages.toLocaleString('en-US')}: ${plan.dispatchReps}; dispatcher pass: ${plan.dispatchSpreadReps}),`,
    'range in brackets. Each repetition runs every variant of a group on both sides, in alternating order, so',
    'load from other processes falls on both alike; ratios are the median of the per-repetition ratios. The floors',
    'under single-event ingest and ingestMany take a turn of their own in that order, as a third side.',
    '"Vigil ×" is how many times as fast Vigil is (for times: reference time ÷ Vigil time).',
    '',
    `| Work | Unit | ${VIGIL} | ${PYTHON} | Vigil × |`,
    '|---|---|---:|---:|---:|',
  );
  for (const figure of results.figures) {
    if (figure.samples.has(FLOOR)) {
      // Neither side's: what the disk and SQLite cost for the same work, bare (floors.ts, dispatch-floor.ts), measured in each repetition.
      const label = figure.key === 'ingestFloor' ? `${figure.label}: the floor under single-event ingest` : figure.label;
      lines.push(`| ${label} | ${figure.unit} | ${cell(figure, FLOOR)} | | |`);
      continue;
    }
    lines.push(`| ${figure.label} | ${figure.unit} | ${cell(figure, VIGIL)} | ${cell(figure, PYTHON)} | ${x(speedup(results, figure))} |`);
  }
  lines.push('');

  lines.push('How each side\'s cost grows (medians of the per-repetition ratios):', '');
  lines.push(`| Ratio | ${VIGIL} | ${PYTHON} |`, '|---|---:|---:|');
  const vr = innerRatios(results, VIGIL);
  const pr = innerRatios(results, PYTHON);
  vr.forEach((row, i) => lines.push(`| ${row.name} | ${x(row.value)} | ${x(pr[i]?.value ?? null)} |`));
  lines.push('');

  lines.push('### Targets (issue 22, and those of issue 2 that still hold)', '');
  lines.push('| Target | Measured as | Goal | Value | Result |', '|---|---|---|---:|---|');
  for (const t of targets) lines.push(`| ${t.name} | ${t.measure} | ${t.goal} | ${targetValue(t)} | ${verdict(t.pass)} |`);
  lines.push('');
  const vigilIngest = results.median('ingest', VIGIL);
  const floor = results.median('ingestFloor', FLOOR);
  if (vigilIngest !== null && floor !== null) {
    lines.push(
      `Single-event ingest against the disk: each side commits every event on its own. The floor is bare one-row commits ` +
        `on a fresh file, measured in each repetition (${Math.round(floor).toLocaleString('en-US')} events/s here); ` +
        `Vigil ingests ${Math.round(vigilIngest).toLocaleString('en-US')} events/s. A side can read above it: the floor's ` +
        `1,000 commits of one page each grow a fresh WAL file throughout, while Vigil's, three pages each (the row and its ` +
        `two index entries), reach SQLite's 1,000-page checkpoint after about 330 and then write over the file from its ` +
        `start, and a synced commit that grows the file costs more than one that does not.`,
      '',
    );
  }
  lines.push(
    'Commits per message in the dispatch rows: the reference makes one durable commit per dispatch (its send runs inside',
    "its write transaction, holding the inbox's write lock for as long as the channel takes). Vigil sends between two",
    'transactions, never inside one: a reservation, committed without a flush (a power loss only makes the batch',
    'sendable again, as a crash would), and the record of the send, one durable commit. So one durable commit per',
    'dispatch on each side.',
    '',
    'The floors under the dispatch rows (bench/dispatch-floor.ts), measured in each repetition on files with Vigil\'s',
    'own schema: the SELECT and UPDATE of the 10,000 held rows in one durable commit, and, per message of the pass,',
    'opening a file, a commit without a flush, a durable commit and closing it. The reference reads and marks its',
    'rows in not much more than the time of that SELECT and UPDATE, so no code that does that work can be twice as fast;',
    'and its pass keeps its 1,000 files open, while a store that holds a bounded number open (three descriptors',
    'each) opens and closes nearly every file of a pass over more inboxes than that: a close checkpoints the WAL',
    '(two flushes) and removes it, and the next first commit creates it again (two more). Vigil\'s targets for these',
    'rows are therefore set against the floors.',
    '',
    'Commits per run in the one-event cycle: the reference makes three durable commits (its acquire, claim and finish',
    'each a `BEGIN IMMEDIATE` at synchronous FULL); Vigil makes one (the finish), its acquire and claim commit without',
    'a flush. Where the disk\'s flush dominates both, the ratio tends to 3x from one side or the other: above it only',
    'while the reference\'s own work per run (its scan of the done rows) is more than three times Vigil\'s. The floor',
    'under the row (bench/floors.ts) makes Vigil\'s commits with nothing around them, on the same file, in each repetition.',
    '',
  );

  lines.push('### What is timed', '');
  lines.push(
    '- **ingest**: `ingest` once per event, each its own durable transaction (reference: `ingest` in autocommit).',
    '  Each side creates its empty inbox file before its timer starts (the reference in `connect()`).',
    '- **ingest, calls in flight**: the same single-event `ingest`, with 64 calls outstanding at a time, as a webhook',
    '  server with many connections sees them; concurrent calls for one inbox share one transaction (group commit), each',
    '  answered after its commit. The reference has no concurrency: it takes deliveries one transaction each, so its',
    '  comparison figure is its single-event ingest.',
    `- **ingestMany**: ${plan.ingestManyBatch} events per call, one transaction each (reference: it has no ingestMany, so its`,
    '  `ingest` inside its `tx()`: the same `INSERT OR IGNORE` dedupe rule, one transaction per batch).',
    '- **run cycle**: `acquire` + `claimBatch` + `finish` with one message, per run; the events are ingested before',
    '  each run, untimed. "Already done" events are ingested, claimed and finished before the timed runs, untimed.',
    '- **scheduler pass**: interval timers (every hour); the due ones fire at each pass, the others are due far later.',
    '  Building the 100,000 timers is setup, in one transaction on each side: Vigil through the code `addTimer` runs',
    '  (`validateTimer` + `upsertTimer`), the reference through its `add_timer`.',
    '  An idle pass runs between two occurrences, when nothing is due.',
    '- **dispatch**: one run\'s `finish` queues the messages (untimed), then one `dispatch` sends them all as one body.',
    `- **dispatch, one message in each of ${plan.dispatchInboxes.toLocaleString('en-US')} inboxes**: a run in each inbox queues one message`,
    '  (untimed); timed, what a dispatcher pass does: `dispatchableInboxes` and each inbox\'s `dispatch`, with the store\'s',
    '  defaults (it keeps 128 inbox files open, so most are opened during the pass). The reference has one inbox per file',
    '  too; its connections stay open (its best case), and each file\'s `dispatch` is called in turn. Per message.',
    '- **floors under the dispatch rows**: once per repetition, straight through better-sqlite3 (WAL, synchronous=FULL)',
    '  on files made by Vigil\'s migrations, with no ready index, pacing or JavaScript around the SQL. For the 10,000',
    '  messages: the `SELECT` of the held rows and the `UPDATE` that marks them sent (Vigil\'s statements), one',
    '  transaction. For the pass: per file, untimed, one held message; timed, open, insert a reservation row at',
    '  synchronous=NORMAL, mark the message sent and delete the reservation in one durable transaction, close.',
    '- **bare one-row commits**: the floor under single-event ingest, once per repetition in a turn of its own: 1,000',
    '  inserts of one row, each its own transaction, into a fresh WAL file at synchronous=FULL, straight through',
    '  better-sqlite3.',
    "- **bare multi-row INSERTs, bare SQL of the scheduler pass** (bench/floors.ts): the floors under ingestMany and the",
    "  pass, once per repetition or pass: the same rows into an inbox file made by Vigil's migrations, at the same",
    '  durability (WAL, synchronous=FULL, one `BEGIN IMMEDIATE` per batch or pass), straight through better-sqlite3 with',
    '  none of Vigil\'s code around the SQL (no validation, engine plan, ready index or answer per event).',
    "- **floor under the one-event cycle** (bench/floors.ts), once per repetition: an inbox file made by Vigil's",
    '  migrations with the done rows in it; per run, untimed, one pending event in a durable commit; timed, the lease row',
    '  and the claim (`UPDATE ... RETURNING`) each committed at synchronous=NORMAL, the done mark and the reply in one',
    '  durable commit, straight through better-sqlite3.',
    '',
  );
  return lines.join('\n');
}

/** Replaces (or appends) this family's section and keeps every other section as it was. */
export function writeSection(file: string, section: string): void {
  writeBenchmarkSection(file, SECTION_HEADING, section);
}


/** The short table for stdout. */
export function renderConsole(run: RunInfo): string {
  const out: string[] = [];
  const rows: string[][] = [['work', 'unit', 'Vigil', 'Python', 'Vigil x']];
  for (const figure of run.results.figures) {
    const v = run.results.median(figure.key, figure.samples.has(FLOOR) ? FLOOR : VIGIL);
    const p = run.results.median(figure.key, PYTHON);
    rows.push([figure.label, figure.unit, v === null ? '-' : fmt(v, figure.unit), p === null ? '-' : fmt(p, figure.unit), x(speedup(run.results, figure))]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) out.push(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  out.push('');
  for (const t of run.targets) out.push(`${verdict(t.pass).padEnd(12)} ${t.name}: ${targetValue(t)} (goal ${t.goal})`);
  if ('unavailable' in run.python) out.push('', `Python reference not available: ${run.python.unavailable}`);
  return out.join('\n');
}
