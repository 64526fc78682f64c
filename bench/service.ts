/**
 * The service family of `npm run bench` (issue 4): webhook ingestion over
 * HTTP against a bare node:http server (service-ingest.ts) and the worker
 * pool's idle-to-work tick at 100 vs 10,000 inboxes (service-tick.ts), in
 * one run. Prints a short table; writes the "## Service" section of
 * BENCHMARKS.md unless told not to. Every child process it starts is
 * stopped by PID, and its scratch directory removed, also on error or on
 * SIGINT/SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMachine } from './machine.js';
import { killAllServers } from './service-children.js';
import { runIngestBench, type IngestPlan } from './service-ingest.js';
import { renderServiceConsole, renderServiceSection, serviceTargets, writeServiceSection, type ServiceRun } from './service-report.js';
import { runTickBench, type TickPlan } from './service-tick.js';
import { elapsedSeconds, startTimer } from './timing.js';

export const SERVICE_FAMILY = 'service';

export interface ServicePlan {
  ingest: IngestPlan;
  tick: TickPlan;
}

/** About 3 minutes on a 2-core machine: 165 s of load (5 servers × 33 s), ~15 s of tick setup and ticks, process starts and cleanup. */
export const SERVICE_FULL_PLAN: ServicePlan = {
  ingest: { connections: 64, warmupSeconds: 3, rounds: 3, roundSeconds: 10, slices: 5, probeSeconds: 10 },
  tick: { small: 100, big: 10_000, working: 10, reps: 7, queryCalls: 200 },
};

/** A smoke run of every step; its figures mean nothing. */
export const SERVICE_QUICK_PLAN: ServicePlan = {
  ingest: { connections: 64, warmupSeconds: 1, rounds: 1, roundSeconds: 2, slices: 2, probeSeconds: 2 },
  tick: { small: 100, big: 1_000, working: 10, reps: 2, queryCalls: 20 },
};

export interface ServiceFamilyOptions {
  quick: boolean;
  /** BENCHMARKS.md; written only when `write`. */
  out: string;
  write: boolean;
  log: (line: string) => void;
}

/** Runs the family; true when every target passed. */
export async function runServiceFamily(options: ServiceFamilyOptions): Promise<boolean> {
  const { log } = options;
  const plan = options.quick ? SERVICE_QUICK_PLAN : SERVICE_FULL_PLAN;
  const started = startTimer();
  const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-service-'));
  const cleanup = (): void => {
    killAllServers();
    rmSync(scratch, { recursive: true, force: true });
  };
  const interrupted = (): void => process.exit(130); // the 'exit' listener cleans up
  process.on('exit', cleanup);
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);
  try {
    log(`service: scratch directory ${scratch}`);
    const machine = describeMachine(scratch);
    const ingest = await runIngestBench(plan.ingest, scratch, log);
    const tick = await runTickBench(plan.tick, scratch, log);
    const run: ServiceRun = {
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      planName: options.quick ? 'quick' : 'full',
      machine,
      autocannonVersion: packageVersion('autocannon'),
      ingest,
      tick,
      durationSeconds: elapsedSeconds(started),
      loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
    };
    process.stdout.write(renderServiceConsole(run) + '\n');
    if (options.write) {
      writeServiceSection(options.out, renderServiceSection(run));
      log(`service: wrote the Service section of ${options.out}`);
    } else {
      log('service: diagnostic run, BENCHMARKS.md not written');
    }
    return serviceTargets(run).every((t) => t.pass);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    process.off('exit', cleanup);
    cleanup();
  }
}

function packageVersion(name: string): string {
  try {
    return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
