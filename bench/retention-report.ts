/** The "## Retention" section of BENCHMARKS.md, from one run of the family (retention.ts). */
import type { RetentionRun } from './retention.js';
import type { IngestRun } from './retention-ingest.js';
import { deliveryId, issueEvent } from './retention-payload.js';
import type { Btree, SizeRun } from './retention-size.js';
import { fileShare, onDisk, sizeRatios } from './retention-verdict.js';

const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const s = (seconds: number): string => `${seconds.toFixed(0)} s`;

/** The b-trees worth a row; the rest (mostly one page each) are summed. */
const SHOWN = ['events', 'sqlite_autoindex_events_1', 'events_by_status_attempts', 'events_finished', 'tombstones'];
const DESCRIBED: Record<string, string> = {
  events: 'events (table: payloads and state)',
  sqlite_autoindex_events_1: 'events, unique (source, source_id)',
  events_by_status_attempts: 'events_by_status_attempts',
  events_finished: 'events_finished (partial: done and dead)',
  tombstones: 'tombstones (keys of pruned events)',
};

export function renderRetentionSection(run: RetentionRun, heading: string): string {
  const m = run.machine;
  const lines: string[] = [heading, ''];
  lines.push(
    `Written by \`npm run bench\` (or alone: \`npm run bench -- --only retention\`; bench/retention.ts) on ${run.date}; ` +
      `${run.quick ? '**a quick smoke run: its figures mean nothing**' : 'full plan'}, ${s(run.seconds)} in all. Issue 21's benchmark targets for retention; ` +
      'the 30-minute soak is in "Soak".',
    '',
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.os}; Node.js ${m.node}, better-sqlite3 ${m.betterSqlite3}.`,
    `- Disk (scratch directory): ${m.disk}; one 4 KiB append + fdatasync: ${m.fdatasyncMs.toFixed(3)} ms (median of 200); ` +
      `a one-row SQLite commit at WAL + synchronous FULL: ${m.sqliteCommitMs.toFixed(3)} ms (median of 500).`,
    `- Load average (1/5/15 min) at start ${m.loadAtStart.join(' / ')}, at end ${run.loadAtEnd.join(' / ')}: the machine is shared with other ` +
      'work, which moves every rate here (the ratios are paired to cancel it; the sizes do not depend on it).',
  );
  for (const note of run.skipped) lines.push(`- Not run: ${note}.`);
  lines.push('', '### Targets', '', '| Target | Measured | Goal | Result |', '|---|---|---|---|');
  for (const t of run.targets) lines.push(`| ${t.name} | ${t.measured} | ${t.goal} | ${t.pass ? 'PASS' : '**FAIL**'} |`);
  lines.push('', ...sizeSection(run), '', ...ingestSection(run.ingest));
  return lines.join('\n').trimEnd();
}

function sizeSection(run: RetentionRun): string[] {
  const { withRetention: w, without: o } = run.size;
  const plan = run.sizePlan;
  const sample = JSON.stringify(issueEvent(0, Date.UTC(2026, 0, 1)));
  const ratios = sizeRatios(w, o);
  const lines: string[] = [
    '### Bounded size: a million webhooks through one SQLite inbox',
    '',
    `${n(plan.events)} deliveries into one inbox, ${n(plan.perDay)} per simulated day for ${plan.events / plan.perDay} days: a fake clock ` +
      `(\`createFakeClock\`) moves ${Math.round(86_400 / (plan.perDay / plan.batch))} s per \`ingestMany\` of ${n(plan.batch)}. ` +
      'Each batch is then worked as a worker would: take the lease, `claimBatch` (store default: 100 events) and `finish` with no reply until ' +
      'nothing is claimable, give the lease back. With retention (`doneEventsMs`: one day), every simulated hour the Pruner\'s own sweep ' +
      '(`Pruner.sweep()`: `store.prune` in batches of 1,000 until nothing past retention is left; its pauses set to nothing, since a simulated ' +
      'hour has no wall-clock time to pause in) prunes, as `vigil serve` does. Store defaults otherwise: WAL, synchronous FULL, incremental vacuum ' +
      'after each prune transaction.',
    '',
    `Each delivery is a GitHub App webhook as it arrives: key (\`github\`, the \`X-GitHub-Delivery\` GUID, e.g. \`${deliveryId(0)}\`: random, so ` +
      `the dedupe index and the tombstones take keys in random order), payload a trimmed \`issues\` "opened" event, ${n(sample.length)} bytes of ` +
      'JSON (issue with title, body, user, labels; repository with owner; sender; installation: the fields an agent reads, in their real ' +
      'shapes; the full event is 5-8 KB). Sizes are the inbox file as it stands at the end with the store still open (a running service), then ' +
      'after the store closed (its last connection checkpoints and removes the WAL).',
    '',
    '| | With a one-day retention | Without retention |',
    '|---|---:|---:|',
    `| main file | ${mib(w.mainBytes)} | ${mib(o.mainBytes)} |`,
    `| WAL | ${mib(w.walBytes)} | ${mib(o.walBytes)} |`,
    `| **together** | **${mib(onDisk(w))}** (${pct(ratios.together)}) | **${mib(onDisk(o))}** |`,
    `| main file alone | ${pct(ratios.main)} of the other | |`,
    `| after the store closed (checkpointed, no WAL) | ${mib(w.closedBytes)} (${pct(ratios.closed)}) | ${mib(o.closedBytes)} |`,
    `| events kept | ${n(w.liveEvents)} | ${n(o.liveEvents)} |`,
    `| tombstones (keys of pruned events) | ${n(w.tombstones)} | ${n(o.tombstones)} |`,
    `| run time | ${s(w.seconds)}, of which pruning ${s(w.pruned.seconds)} (${n(w.pruned.sweeps)} sweeps, ${n(w.pruned.events)} events) | ${s(o.seconds)} |`,
  ];
  if (w.recheck !== null) {
    lines.push(
      `| every key offered again (\`ingestMany\`, ${n(plan.batch)} a call) | ${n(w.recheck.stored)} stored, ${n(w.recheck.offered - w.recheck.stored)} refused, in ${s(w.recheck.seconds)} ` +
        `(${n(w.recheck.offered / w.recheck.seconds)} keys/s) | – |`,
    );
  }
  lines.push('', ...shapeTable(w, o));
  return lines;
}

/** What the pages hold (SQLite's dbstat, read on a second connection at the end). */
function shapeTable(w: SizeRun, o: SizeRun): string[] {
  const row = (btrees: Btree[], name: string): string => {
    const b = btrees.find((x) => x.name === name);
    return b === undefined ? '–' : `${mib(b.bytes)} (${pct(b.unusedBytes / Math.max(1, b.bytes))} unused)`;
  };
  const rest = (btrees: Btree[]): string => {
    const others = btrees.filter((b) => !SHOWN.includes(b.name));
    return `${mib(others.reduce((sum, b) => sum + b.bytes, 0))} (${others.length} b-trees)`;
  };
  const shareW = fileShare(w.shape.btrees, w.shape.freelistPages, w.shape.pageSize);
  const lines = [
    `What the pages hold at the end (SQLite's \`dbstat\`; the file's own page count, which can trail the main file's size on disk until the next checkpoint truncates it):`,
    '',
    '| b-tree | With retention | Without |',
    '|---|---:|---:|',
    ...SHOWN.map((name) => `| ${DESCRIBED[name] ?? name} | ${row(w.shape.btrees, name)} | ${row(o.shape.btrees, name)} |`),
    `| everything else | ${rest(w.shape.btrees)} | ${rest(o.shape.btrees)} |`,
    `| free pages | ${n(w.shape.freelistPages)} | ${n(o.shape.freelistPages)} |`,
    `| pages in all (x ${n(w.shape.pageSize)} bytes) | ${n(w.shape.pageCount)} = ${mib(w.shape.pageCount * w.shape.pageSize)} | ${n(o.shape.pageCount)} = ${mib(o.shape.pageCount * o.shape.pageSize)} |`,
    '',
    `With retention, of the ${mib(shareW.total)} of pages: the ${n(w.liveEvents)} events kept (their table and three indexes) ${pct(shareW.liveEvents / shareW.total)}, ` +
      `the ${n(w.tombstones)} tombstones ${pct(shareW.tombstones / shareW.total)} (${n(shareW.tombstones / Math.max(1, w.tombstones))} bytes per key, pages included), ` +
      `everything else ${pct(shareW.rest / shareW.total)}, free pages ${pct(shareW.freelist / shareW.total)}.`,
  ];
  return lines;
}

function ingestSection(runs: IngestRun[]): string[] {
  if (runs.length === 0) return [];
  const plan = runs[0]!.plan;
  const lines = [
    '### Pruning while ingesting',
    '',
    `${plan.inboxes} inboxes, each with a backlog of ${n(plan.backlogPerInbox)} done events finished two simulated days before (retention: one day), ` +
      'so all of it is prunable from the start. Deliveries (the payloads above, new keys) at full speed into the same inboxes, round robin, in ' +
      `two ways: ${plan.inFlight} single \`ingest\` calls in flight (a webhook server under a burst; SQLite commits the calls of one inbox that ` +
      `arrive together in one transaction), and ${plan.manyCallers} callers of \`ingestMany\` with ${plan.manyBatch} each. "With the Pruner": a ` +
      '`Pruner` at its defaults (batches of 1,000, a pause of nineteen times each batch\'s time after it) in the same store object and process, as ' +
      '`vigil serve` runs it. The load runs through a repetition; the Pruner is started (or stopped), then after ' +
      `${(plan.settleMs / 1000).toFixed(1)} s a window of ${(plan.windowMs / 1000).toFixed(0)} s counts the deliveries stored. Each repetition ` +
      'runs both variants with and without the Pruner, the order flipping each repetition; a ratio is with ÷ without in the same repetition, ' +
      'and the target is judged on their median. "Prune calls" is the share of the window the Pruner\'s `store.prune` calls took, start to ' +
      'resolution (on SQLite, calls run on the same thread as ingest; on PostgreSQL they include waiting for a pool connection and the inbox\'s row lock).',
    '',
    '| Store | Ingest | Rep | Without Pruner | With Pruner | Ratio | Pruned in the window | Prune calls |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const run of runs) {
    for (const variant of ['single', 'many'] as const) {
      for (let r = 0; r < run.plan.repetitions; r++) {
        const mine = run.windows.filter((x) => x.repetition === r && x.variant === variant);
        const withP = mine.find((x) => x.pruning);
        const without = mine.find((x) => !x.pruning);
        if (withP === undefined || without === undefined) continue;
        const label = variant === 'single' ? `${run.plan.inFlight} x ingest` : `${run.plan.manyCallers} x ingestMany(${run.plan.manyBatch})`;
        lines.push(
          `| ${run.store} | ${label} | ${r + 1}${r % 2 === 0 ? ' (with first)' : ''} | ${n(without.perS)}/s | ${n(withP.perS)}/s | ${(withP.perS / without.perS).toFixed(2)} | ` +
            `${n(withP.pruned)} | ${pct(withP.pruneDuty)} |`,
        );
      }
    }
  }
  lines.push('');
  for (const run of runs) {
    lines.push(
      `- ${run.store}: backlog seeded in ${s(run.seedSeconds)} (untimed); ${n(run.backlogLeft)} of ${n(run.plan.inboxes * run.plan.backlogPerInbox)} backlog events ` +
        `still unpruned after the last window${run.backlogLeft > 0 ? ', so the Pruner had work throughout' : ' (**the Pruner ran out of work**: the later windows measure less than they say)'}.`,
    );
  }
  return lines;
}
