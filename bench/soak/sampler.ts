/**
 * One sample per side per tick: what happened since the last one (offered,
 * done and delivered per second, latency quantiles) and where the data
 * stands (tables, indexes and dead tuples, or the store directory), each
 * appended to the run's JSON lines file as it is taken, so a run cut short
 * keeps what it measured.
 *
 * Tick hooks are the place for housekeeping a deployment runs beside the
 * load: each runs once per side per tick, and the figures it returns are
 * kept in the sample's `extra` (--retention adds one that reads what the
 * workers pruned: soak-store.ts, tickHooks).
 */
import { appendFileSync } from 'node:fs';
import type { StoreKind } from './config.js';
import { quantile } from './ledger.js';
import type { Side, SideKey, SideStorage } from './side.js';

export interface Latency {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export interface Sample {
  type: 'sample';
  store: StoreKind;
  side: SideKey;
  phase: string;
  /** Seconds from the start of the load to the end of this sample's window. */
  t: number;
  seconds: number;
  offeredPerS: number;
  donePerS: number;
  deliveredPerS: number;
  duplicates: number;
  /** Stored events whose reply was not delivered yet, at the end of the window. */
  backlog: number;
  latencyMs: Latency;
  /** The longest wait of an event from its offer time to its ingest call (the producer behind). */
  producerLagMs: number;
  workersReady: number;
  /** CPU the side's worker processes used in the window, in cores (1.0 = one core busy throughout); NaN without /proc. */
  workerCores: number;
  storage: SideStorage;
  /** PostgreSQL: age in transactions of the oldest snapshot any session holds (the xmin horizon). */
  xminAge: number | null;
  extra: Record<string, number>;
}

export interface TickHook {
  name: string;
  tick(side: Side, elapsedMs: number): Promise<Record<string, number> | void>;
}

export interface SamplerOptions {
  store: StoreKind;
  sides: readonly Side[];
  file: string;
  hooks: readonly TickHook[];
  /** PostgreSQL only. */
  xminAge: (() => Promise<number>) | null;
  log(line: string): void;
}

export class Sampler {
  readonly samples: Sample[] = [];
  private readonly lastOffered = new Map<SideKey, number>();
  private readonly lastCpu = new Map<SideKey, number>();
  private lastAt: number;

  constructor(
    private readonly options: SamplerOptions,
    private readonly t0: number,
  ) {
    this.lastAt = t0;
    // From here: the CPU the workers spent starting up is not the load's.
    for (const side of options.sides) this.lastCpu.set(side.key, side.fleet.cpuSeconds());
  }

  /** Closes the window that started at the last call; `phase` is the one it lay in. */
  async take(phase: string): Promise<void> {
    const now = Date.now();
    const seconds = Math.max(0.001, (now - this.lastAt) / 1000);
    this.lastAt = now;
    const xminAge = this.options.xminAge === null ? null : await this.options.xminAge();
    for (const side of this.options.sides) {
      const window = side.ledger.takeWindow();
      const offered = side.producer.offered;
      const offeredInWindow = offered - (this.lastOffered.get(side.key) ?? 0);
      this.lastOffered.set(side.key, offered);
      const cpu = side.fleet.cpuSeconds();
      const cpuInWindow = cpu - (this.lastCpu.get(side.key) ?? 0);
      this.lastCpu.set(side.key, cpu);
      const extra: Record<string, number> = {};
      for (const hook of this.options.hooks) Object.assign(extra, (await hook.tick(side, now - this.t0)) ?? {});
      const sample: Sample = {
        type: 'sample',
        store: this.options.store,
        side: side.key,
        phase,
        t: round((now - this.t0) / 1000, 1),
        seconds: round(seconds, 2),
        offeredPerS: round(offeredInWindow / seconds, 1),
        donePerS: round(window.done / seconds, 1),
        deliveredPerS: round(window.delivered / seconds, 1),
        duplicates: window.duplicates,
        backlog: side.ledger.storedCount - side.ledger.deliveredCount,
        latencyMs: latencyOf(window.latencies),
        producerLagMs: side.producer.takeLagMs(),
        workersReady: side.fleet.readyCount,
        workerCores: round(cpuInWindow / seconds, 2),
        storage: await side.storage(),
        xminAge,
        extra,
      };
      this.samples.push(sample);
      appendFileSync(this.options.file, JSON.stringify(sample) + '\n');
      this.options.log(describe(sample));
    }
  }
}

export function latencyOf(values: readonly number[]): Latency {
  return {
    n: values.length,
    p50: round(quantile(values, 0.5), 1),
    p95: round(quantile(values, 0.95), 1),
    p99: round(quantile(values, 0.99), 1),
    max: values.length === 0 ? Number.NaN : round(values.reduce((a, b) => Math.max(a, b), 0), 1),
  };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function describe(s: Sample): string {
  const storage =
    s.storage.kind === 'postgres'
      ? `dead ${s.storage.deadTuples.toLocaleString('en-US')}, ${(s.storage.totalBytes / 2 ** 20).toFixed(1)} MiB` +
        (s.xminAge === null ? '' : `, xmin age ${s.xminAge.toLocaleString('en-US')}`)
      : `${(s.storage.totalBytes / 2 ** 20).toFixed(1)} MiB in ${s.storage.files} files (WAL ${(s.storage.walBytes / 2 ** 20).toFixed(1)} MiB)`;
  const ms = (x: number): string => (Number.isNaN(x) ? '–' : x >= 1000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
  const pruned =
    s.extra.prunedEvents === undefined
      ? ''
      : `  pruned ${s.extra.prunedEvents.toLocaleString('en-US')} events, ${(s.extra.prunedMessages ?? 0).toLocaleString('en-US')} messages` +
        (s.extra.tombstones === undefined ? '' : `, ${s.extra.tombstones.toLocaleString('en-US')} tombstones`);
  return (
    `${s.side.padEnd(8)} ${s.phase.padEnd(13)} t=${String(s.t).padStart(6)} s  offered ${s.offeredPerS}/s done ${s.donePerS}/s delivered ${s.deliveredPerS}/s` +
    `  p50/p99 ${ms(s.latencyMs.p50)}/${ms(s.latencyMs.p99)}  backlog ${s.backlog}  workers ${s.workerCores} cores  ${storage}${pruned}`
  );
}
