/**
 * The retention family (issue 21's benchmark targets), in one run:
 *
 * - bounded size (retention-size.ts): 1,000,000 webhook deliveries through
 *   one SQLite inbox over ten simulated days with a one-day retention,
 *   against the same run without; the file must end at most 15% of the
 *   size, and every key must still be refused;
 * - pruning while ingesting (retention-ingest.ts): ingest at full speed
 *   with a Pruner working off a backlog must be at most 10% slower than
 *   without, on SQLite and on PostgreSQL (a throwaway server unless
 *   DATABASE_URL is set).
 *
 * Writes its own "## Retention" section of BENCHMARKS.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/index.js';
import { writeBenchmarkSection } from './benchmarks-file.js';
import { describeMachine, type Machine } from './machine.js';
import { dropSchema, openBenchServer } from './postgres-server.js';
import { FULL_INGEST_PLAN, QUICK_INGEST_PLAN, runIngestUnderPruning, type IngestRun } from './retention-ingest.js';
import { DAY, FULL_SIZE_PLAN, QUICK_SIZE_PLAN, runSize, type SizePlan, type SizeRun } from './retention-size.js';
import { renderRetentionSection } from './retention-report.js';
import { ingestTargets, sizeTargets, type Target } from './retention-verdict.js';
import { elapsedSeconds, startTimer } from './timing.js';

/** `npm run bench -- --only retention` runs this family alone. */
export const RETENTION_FAMILY = 'retention';
export const RETENTION_HEADING = '## Retention';

export interface RetentionRun {
  date: string;
  quick: boolean;
  seconds: number;
  machine: Machine;
  loadAtEnd: number[];
  sizePlan: SizePlan;
  size: { withRetention: SizeRun; without: SizeRun };
  ingest: IngestRun[];
  /** Why a part did not run (PostgreSQL unavailable), if one did not. */
  skipped: string[];
  targets: Target[];
}

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' / ');

async function sizeRun(scratch: string, plan: SizePlan, retentionMs: number | null, log: (line: string) => void): Promise<SizeRun> {
  const dir = mkdtempSync(join(scratch, retentionMs === null ? 'without-' : 'with-'));
  try {
    log(`retention size: ${plan.events.toLocaleString('en-US')} events ${retentionMs === null ? 'without retention' : 'with a one-day retention'} (load ${load()})`);
    return await runSize({ dir, plan, retentionMs, recheck: retentionMs !== null, log });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runRetentionFamily(options: { quick: boolean; out: string | null; log: (line: string) => void }): Promise<boolean> {
  const { quick, log } = options;
  const started = startTimer();
  const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-retention-'));
  try {
    const machine = describeMachine(scratch);
    const sizePlan = quick ? QUICK_SIZE_PLAN : FULL_SIZE_PLAN;
    const withRetention = await sizeRun(scratch, sizePlan, DAY, log);
    const without = await sizeRun(scratch, sizePlan, null, log);

    const ingestPlan = quick ? QUICK_INGEST_PLAN : FULL_INGEST_PLAN;
    const ingest: IngestRun[] = [];
    const skipped: string[] = [];
    const sqliteDir = mkdtempSync(join(scratch, 'ingest-'));
    try {
      log(`retention ingest: SQLite (load ${load()})`);
      ingest.push(
        await runIngestUnderPruning({ label: 'SQLite', seedOptions: { synchronous: 'normal' }, open: (o) => openStore(`sqlite:${sqliteDir}`, o) }, ingestPlan, log),
      );
    } finally {
      rmSync(sqliteDir, { recursive: true, force: true });
    }
    let server: Awaited<ReturnType<typeof openBenchServer>> | null = null;
    try {
      server = await openBenchServer();
    } catch (error) {
      skipped.push(`PostgreSQL: no server (${error instanceof Error ? error.message : String(error)})`);
      log(`retention ingest: PostgreSQL skipped: ${skipped[skipped.length - 1]}`);
    }
    if (server !== null) {
      const schema = `retention_bench_${process.pid}`;
      const url = server.url;
      try {
        log(`retention ingest: PostgreSQL (load ${load()})`);
        // Seeding at the store's defaults: PostgreSQL has no cheaper durability the store would set.
        ingest.push(await runIngestUnderPruning({ label: 'PostgreSQL', seedOptions: {}, open: (o) => openStore(url, { ...o, schema }) }, ingestPlan, log));
      } finally {
        await dropSchema(server.admin, schema).catch(() => undefined);
        await server.stop();
      }
    }

    const run: RetentionRun = {
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      quick,
      seconds: elapsedSeconds(started),
      machine,
      loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
      sizePlan,
      size: { withRetention, without },
      ingest,
      skipped,
      targets: [...sizeTargets(withRetention, without, sizePlan.events), ...ingest.flatMap(ingestTargets)],
    };
    const section = renderRetentionSection(run, RETENTION_HEADING);
    process.stdout.write(section + '\n');
    if (options.out !== null) {
      writeBenchmarkSection(options.out, RETENTION_HEADING, section);
      log(`wrote the retention section of ${options.out}`);
    }
    return run.targets.every((t) => t.pass);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
