/**
 * The retention family's arithmetic, apart from its measuring: the issue's
 * targets judged from the figures, and what an inbox file's pages hold.
 * Kept pure so its bookkeeping has a test (test/bench/retention-verdict.test.ts).
 */
import type { IngestRun, Variant } from './retention-ingest.js';
import type { Btree, SizeRun } from './retention-size.js';
import { median } from './timing.js';

/** The issue's targets. */
export const SIZE_TARGET = 0.15;
export const SLOWDOWN_TARGET = 0.1;

export interface Target {
  name: string;
  measured: string;
  goal: string;
  pass: boolean;
}

/** The file as a running service leaves it: main file and WAL together. */
export const onDisk = (run: SizeRun): number => run.mainBytes + run.walBytes;

/** Size with retention over size without, together and for the main file alone. */
export function sizeRatios(withRetention: SizeRun, without: SizeRun): { together: number; main: number; closed: number } {
  return {
    together: onDisk(withRetention) / onDisk(without),
    main: withRetention.mainBytes / without.mainBytes,
    closed: withRetention.closedBytes / without.closedBytes,
  };
}

/**
 * Per repetition, the with-Pruner rate over the without rate of the same
 * variant in the same repetition (paired: taken moments apart), in run
 * order; a repetition missing either window is left out.
 */
export function pairedRatios(run: Pick<IngestRun, 'windows'>, variant: Variant): number[] {
  const repetitions = [...new Set(run.windows.map((w) => w.repetition))].sort((a, b) => a - b);
  const ratios: number[] = [];
  for (const r of repetitions) {
    const mine = run.windows.filter((w) => w.repetition === r && w.variant === variant);
    const withPruner = mine.find((w) => w.pruning);
    const without = mine.find((w) => !w.pruning);
    if (withPruner !== undefined && without !== undefined && without.perS > 0) ratios.push(withPruner.perS / without.perS);
  }
  return ratios;
}

/** How much slower ingest was with the Pruner: 1 - the median paired ratio (negative: faster). */
export function slowdown(ratios: readonly number[]): number {
  return 1 - median(ratios);
}

/** What the pages of an inbox file hold, in the groups a reader asks about. */
export interface FileShare {
  /** The events table and its three indexes: what the live (not yet pruned) events cost. */
  liveEvents: number;
  tombstones: number;
  /** Every other table and index (schema, lease, outbox, ...), most of them one page. */
  rest: number;
  freelist: number;
  total: number;
}

const EVENT_BTREES = new Set(['events', 'sqlite_autoindex_events_1', 'events_by_status_attempts', 'events_finished']);

export function fileShare(btrees: readonly Btree[], freelistPages: number, pageSize: number): FileShare {
  const share: FileShare = { liveEvents: 0, tombstones: 0, rest: 0, freelist: freelistPages * pageSize, total: 0 };
  for (const b of btrees) {
    if (EVENT_BTREES.has(b.name)) share.liveEvents += b.bytes;
    else if (b.name === 'tombstones') share.tombstones += b.bytes;
    else share.rest += b.bytes;
  }
  share.total = share.liveEvents + share.tombstones + share.rest + share.freelist;
  return share;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

export function sizeTargets(withRetention: SizeRun, without: SizeRun, events: number): Target[] {
  const ratio = sizeRatios(withRetention, without).together;
  const targets: Target[] = [
    {
      name: `SQLite inbox file after ${events.toLocaleString('en-US')} events over ten simulated days, one-day retention, against the same run without`,
      measured: `${mib(onDisk(withRetention))} vs ${mib(onDisk(without))} (main file + WAL) = ${pct(ratio)}`,
      goal: `<= ${pct(SIZE_TARGET)}`,
      pass: ratio <= SIZE_TARGET,
    },
  ];
  const recheck = withRetention.recheck;
  if (recheck !== null) {
    targets.push({
      name: 'every old key still refused after pruning (ingestMany of every key again)',
      measured: `${(recheck.offered - recheck.stored).toLocaleString('en-US')} of ${recheck.offered.toLocaleString('en-US')} refused`,
      goal: 'all',
      pass: recheck.stored === 0 && recheck.offered === events,
    });
  }
  return targets;
}

export function ingestTargets(run: IngestRun): Target[] {
  return (['single', 'many'] as const).map((variant) => {
    const ratios = pairedRatios(run, variant);
    const slower = slowdown(ratios);
    const how = variant === 'single' ? `${run.plan.inFlight} single ingest calls in flight` : `${run.plan.manyCallers} callers of ingestMany (${run.plan.manyBatch} each)`;
    return {
      name: `${run.store}: ingest with a Pruner working off a backlog, ${how}, against no pruning`,
      measured: `${slower >= 0 ? `${pct(slower)} slower` : `${pct(-slower)} faster`} (median of ${ratios.length} paired ratios: ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
      goal: `<= ${pct(SLOWDOWN_TARGET)} slower`,
      pass: ratios.length > 0 && slower <= SLOWDOWN_TARGET,
    };
  });
}
