/**
 * The retention benchmark's bookkeeping (bench/retention-verdict.ts): ratios
 * are paired within a repetition, whatever order the windows ran in; a
 * target is judged on what it says; the file's pages are grouped as the
 * report reads them. The benchmark itself (npm run bench) is not part of the suite.
 */
import { describe, expect, it } from 'vitest';
import type { IngestWindow } from '../../bench/retention-ingest.js';
import type { SizeRun } from '../../bench/retention-size.js';
import { fileShare, pairedRatios, sizeTargets, slowdown } from '../../bench/retention-verdict.js';

const window = (repetition: number, variant: 'single' | 'many', pruning: boolean, perS: number): IngestWindow => ({
  repetition,
  variant,
  pruning,
  perS,
  events: perS,
  seconds: 1,
  pruned: 0,
  pruneDuty: 0,
});

describe('pairedRatios', () => {
  it('divides with by without within each repetition, in either order, and leaves out a repetition missing one', () => {
    const windows = [
      window(0, 'single', true, 90),
      window(0, 'single', false, 100),
      window(0, 'many', true, 1_000),
      window(0, 'many', false, 500),
      window(1, 'single', false, 200), // without first this time
      window(1, 'single', true, 220),
      window(2, 'single', true, 50), // its without window never ran
    ];
    expect(pairedRatios({ windows }, 'single')).toEqual([0.9, 1.1]);
    expect(pairedRatios({ windows }, 'many')).toEqual([2]);
  });

  it('judges the median ratio, not the ratio of medians', () => {
    // Medians of the rates: with 100, without 100 (ratio 1); paired: 0.5, 0.8, 2 (median 0.8: 20% slower).
    const windows = [
      window(0, 'single', true, 50),
      window(0, 'single', false, 100),
      window(1, 'single', true, 100),
      window(1, 'single', false, 125),
      window(2, 'single', true, 400),
      window(2, 'single', false, 200),
    ];
    expect(slowdown(pairedRatios({ windows }, 'single'))).toBeCloseTo(0.2);
  });
});

describe('sizeTargets', () => {
  const run = (mainBytes: number, walBytes: number, recheck: SizeRun['recheck']): SizeRun => ({
    retentionMs: recheck === null ? null : 86_400_000,
    seconds: 1,
    mainBytes,
    walBytes,
    closedBytes: mainBytes,
    liveEvents: 0,
    tombstones: 0,
    pruned: { events: 0, sweeps: 0, seconds: 0 },
    shape: { pageSize: 4096, pageCount: 0, freelistPages: 0, btrees: [] },
    recheck,
  });

  it('counts the WAL with the main file, and fails a single key stored again', () => {
    const [size, keys] = sizeTargets(run(140, 10, { offered: 1_000, stored: 1, seconds: 1 }), run(990, 10, null), 1_000);
    expect(size!.pass).toBe(true); // 150 / 1000 = 15%: at the limit
    expect(keys!.pass).toBe(false);
    const [over] = sizeTargets(run(141, 10, { offered: 1_000, stored: 0, seconds: 1 }), run(990, 10, null), 1_000);
    expect(over!.pass).toBe(false);
  });

  it('fails the key check when fewer keys were offered than the run stored', () => {
    const [, keys] = sizeTargets(run(100, 0, { offered: 999, stored: 0, seconds: 1 }), run(1_000, 0, null), 1_000);
    expect(keys!.pass).toBe(false);
  });
});

describe('fileShare', () => {
  it('counts the events table with its three indexes as live events, and free pages apart', () => {
    const btrees = [
      { name: 'events', pages: 10, bytes: 40_960, unusedBytes: 0 },
      { name: 'sqlite_autoindex_events_1', pages: 2, bytes: 8_192, unusedBytes: 0 },
      { name: 'events_by_status_attempts', pages: 1, bytes: 4_096, unusedBytes: 0 },
      { name: 'events_finished', pages: 1, bytes: 4_096, unusedBytes: 0 },
      { name: 'tombstones', pages: 3, bytes: 12_288, unusedBytes: 0 },
      { name: 'lease', pages: 1, bytes: 4_096, unusedBytes: 0 },
    ];
    expect(fileShare(btrees, 2, 4_096)).toEqual({ liveEvents: 57_344, tombstones: 12_288, rest: 4_096, freelist: 8_192, total: 81_920 });
  });
});
