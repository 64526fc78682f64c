/**
 * Which series each soak chart draws, from the samples, and where the SVG
 * files go: docs/soak/<store>-<chart>.svg, the files BENCHMARKS.md links to
 * (a new run of the same store replaces them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreKind } from './config.js';
import type { Phase } from './phases.js';
import { renderChart, type Chart, type Series } from './plot.js';
import type { Sample } from './sampler.js';
import { SIDE_LABELS, type SideKey } from './side.js';

const COLORS: Record<SideKey, [string, string, string]> = {
  vigil: ['#9ecae1', '#3182bd', '#08306b'],
  graphile: ['#fdd0a2', '#f16913', '#7f2704'],
};

export interface ChartFile {
  name: string;
  /** Relative to the repository, for links. */
  path: string;
  title: string;
}

export function writeCharts(dir: string, store: StoreKind, label: string, phases: readonly Phase[], samples: readonly Sample[], kills: number[]): ChartFile[] {
  mkdirSync(dir, { recursive: true });
  const sides = [...new Set(samples.map((s) => s.side))];
  const of = (side: SideKey): Sample[] => samples.filter((s) => s.side === side);
  const line = (side: SideKey, name: string, pick: (s: Sample) => number, shade = 1, dashed = false): Series => ({
    label: `${SIDE_LABELS[side]} ${name}`,
    color: COLORS[side][shade]!,
    dashed: dashed || side === 'graphile',
    points: of(side).map((s) => [s.t, pick(s)]),
  });
  const charts: { name: string; chart: Omit<Chart, 'phases' | 'kills'> }[] = [];

  charts.push({
    name: 'throughput',
    chart: {
      title: `Throughput: events done and replies delivered per second (${label})`,
      yLabel: 'per second',
      series: [
        { label: 'offered', color: '#888888', dashed: true, points: of(sides[0]!).map((s) => [s.t, s.offeredPerS]) },
        ...sides.flatMap((side) => [line(side, 'done/s', (s) => s.donePerS, 1), line(side, 'delivered/s', (s) => s.deliveredPerS, 2)]),
      ],
      format: (v) => String(Math.round(v)),
    },
  });
  charts.push({
    name: 'latency',
    chart: {
      title: `End-to-end latency, offer to delivered reply, per 10 s (${label})`,
      yLabel: 'milliseconds (log scale)',
      log: true,
      series: sides.flatMap((side) => [
        line(side, 'p50', (s) => s.latencyMs.p50, 0),
        line(side, 'p95', (s) => s.latencyMs.p95, 1),
        line(side, 'p99', (s) => s.latencyMs.p99, 2),
      ]),
      format: (v) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`),
    },
  });
  charts.push({
    name: 'backlog',
    chart: {
      title: `Backlog: events stored whose reply is not delivered yet (${label})`,
      yLabel: 'events',
      series: sides.map((side) => line(side, 'backlog', (s) => s.backlog, 1)),
      format: (v) => v.toLocaleString('en-US'),
    },
  });
  if (store === 'postgres') {
    charts.push({
      name: 'dead-tuples',
      chart: {
        title: `Dead tuples in each side's tables (n_dead_tup, summed) (${label})`,
        yLabel: 'dead tuples',
        series: sides.map((side) => line(side, 'dead tuples', (s) => (s.storage.kind === 'postgres' ? s.storage.deadTuples : Number.NaN), 1)),
        format: (v) => v.toLocaleString('en-US'),
      },
    });
    charts.push({
      name: 'size',
      chart: {
        title: `Size of each side's tables: all (heap, indexes, TOAST) and indexes alone (${label})`,
        yLabel: 'MiB',
        series: sides.flatMap((side) => [
          line(side, 'tables + indexes', (s) => s.storage.totalBytes / 2 ** 20, 2),
          line(side, 'indexes', (s) => (s.storage.kind === 'postgres' ? s.storage.indexBytes / 2 ** 20 : Number.NaN), 0),
        ]),
        format: (v) => v.toFixed(v < 10 ? 1 : 0),
      },
    });
  } else {
    charts.push({
      name: 'size',
      chart: {
        title: `Size of the store directory: inbox files, their WAL, the ready index (${label})`,
        yLabel: 'MiB',
        series: [
          line('vigil', 'all files', (s) => s.storage.totalBytes / 2 ** 20, 2),
          line('vigil', 'of which WAL', (s) => (s.storage.kind === 'sqlite' ? s.storage.walBytes / 2 ** 20 : Number.NaN), 0),
        ],
        format: (v) => v.toFixed(v < 10 ? 1 : 0),
      },
    });
  }

  const retained = of('vigil').filter((s) => s.extra.prunedEvents !== undefined);
  if (retained.length > 0) {
    charts.push({
      name: 'pruned',
      chart: {
        title: `Retention: rows Vigil's workers pruned so far${store === 'postgres' ? ', and the tombstones' : ''} (${label})`,
        yLabel: 'rows',
        series: [
          { label: 'Vigil events pruned', color: COLORS.vigil[1], dashed: false, points: retained.map((s) => [s.t, s.extra.prunedEvents ?? Number.NaN]) },
          { label: 'Vigil messages pruned', color: COLORS.vigil[0], dashed: true, points: retained.map((s) => [s.t, s.extra.prunedMessages ?? Number.NaN]) },
          ...(store === 'postgres'
            ? [{ label: 'Vigil tombstones', color: COLORS.vigil[2], dashed: false, points: retained.map((s): [number, number] => [s.t, s.extra.tombstones ?? Number.NaN]) }]
            : []),
        ],
        format: (v) => v.toLocaleString('en-US'),
      },
    });
    if (store === 'postgres') {
      const table = (s: Sample, name: string): number => (s.storage.kind === 'postgres' ? (s.storage.tables.find((t) => t.name === name)?.totalBytes ?? 0) / 2 ** 20 : Number.NaN);
      charts.push({
        name: 'tables',
        chart: {
          title: `Vigil's tables under retention: heap + indexes + TOAST (${label})`,
          yLabel: 'MiB',
          series: [
            { label: 'events', color: COLORS.vigil[1], dashed: false, points: retained.map((s) => [s.t, table(s, 'events')]) },
            { label: 'outbox', color: COLORS.vigil[0], dashed: false, points: retained.map((s) => [s.t, table(s, 'outbox')]) },
            { label: 'tombstones', color: COLORS.vigil[2], dashed: true, points: retained.map((s) => [s.t, table(s, 'tombstones')]) },
          ],
          format: (v) => v.toFixed(v < 10 ? 1 : 0),
        },
      });
    }
  }

  return charts.map(({ name, chart }) => {
    const file = `${store}-${name}.svg`;
    writeFileSync(join(dir, file), renderChart({ ...chart, phases, kills }));
    return { name, path: `docs/soak/${file}`, title: chart.title };
  });
}
