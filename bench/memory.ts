/**
 * The memory family of `npm run bench` (issue 22): the resident memory of a
 * real `vigil serve` (the built package, plain node, SQLite at its defaults,
 * the writer thread on as serve runs it) with 10,000 and with 100,000 idle
 * inboxes, sampled from /proc/<pid>/status of the child, through three
 * phases: started and idle; signed webhooks to `active` inboxes, each run by
 * the worker pool (the LRU of open files churns); and a restart whose first
 * open re-derives the ready index from every inbox file, as after a
 * machine boot. Writes the "## Memory" section of BENCHMARKS.md.
 *
 *   npm run bench -- --only memory
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentBootId } from '../src/store/sqlite/boot-id.js';
import { describeMachine } from './machine.js';
import { renderMemoryConsole, renderMemorySection, memoryTargets, type MemoryRun, type PhaseFigures, type SizeFigures } from './memory-report.js';
import { buildIdleStore, buildPackage, dueInboxes, forgetRebuild, memoryInboxName, rebuiltInBoot } from './memory-setup.js';
import { killAllServe, measureFloor, MemoryWatch, ServeChild } from './memory-serve.js';
import { writeBenchmarkSection } from './benchmarks-file.js';
import { elapsedSeconds, startTimer } from './timing.js';

export const MEMORY_FAMILY = 'memory';
export const MEMORY_HEADING = '## Memory';

export interface MemoryPlan {
  sizes: number[];
  /** Distinct inbox files; further names are hard links to them (memory-setup.ts). */
  distinctFiles: number;
  /** Inboxes that get one webhook each in the activity phase. */
  active: number;
  concurrency: number;
  /** How long each phase's end is watched, idle. */
  idleSeconds: number;
  /** A phase that has not settled by then fails the run. */
  timeoutMs: number;
}

export const MEMORY_FULL_PLAN: MemoryPlan = { sizes: [10_000, 100_000], distinctFiles: 10_000, active: 1_000, concurrency: 16, idleSeconds: 5, timeoutMs: 900_000 };
export const MEMORY_QUICK_PLAN: MemoryPlan = { sizes: [500, 2_000], distinctFiles: 500, active: 200, concurrency: 16, idleSeconds: 1, timeoutMs: 60_000 };

const SECRET = 'bench-memory-github-secret-0123456789';
const TOKEN = 'bench-memory-token-0123456789abcdef0';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, serve: ServeChild, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`memory: timed out waiting for ${what}; vigil serve printed:\n${serve.tail()}`);
    await sleep(100);
  }
}

/** One signed GitHub delivery to each inbox, `concurrency` at a time; every answer must be 202. */
async function deliver(url: string, inboxes: string[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inboxes.length) {
      const inbox = inboxes[next++]!;
      const id = randomUUID();
      const body = JSON.stringify({ action: 'opened', delivery: id, issue: { number: 1, title: 'Memory benchmark' }, sender: { login: 'octocat' } });
      const response = await fetch(`${url}/hooks/${inbox}/github`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': id,
          'x-hub-signature-256': 'sha256=' + createHmac('sha256', SECRET).update(body).digest('hex'),
        },
      });
      await response.arrayBuffer();
      if (response.status !== 202) throw new Error(`memory: a delivery to ${inbox} was answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function watchIdle(pid: number, seconds: number): Promise<PhaseFigures> {
  const watch = new MemoryWatch(pid);
  await sleep(seconds * 1000);
  const { maxRss, last } = watch.stop();
  return { seconds, maxRss, endRss: last.rss, hwm: last.hwm, threads: last.threads };
}

async function measureSize(plan: MemoryPlan, scratch: string, cli: string, n: number, log: (line: string) => void): Promise<SizeFigures> {
  const base = join(scratch, `size-${n}`);
  const data = join(base, 'data');
  const built = await buildIdleStore(data, join(base, 'template'), n, plan.distinctFiles, plan.active);
  log(`memory: ${n} idle inboxes (${built.distinctFiles} distinct files) built in ${built.seconds.toFixed(1)} s`);
  const config = join(base, 'vigil.config.json');
  writeFileSync(
    config,
    JSON.stringify({ store: `sqlite:${data}`, host: '127.0.0.1', port: 0, token: TOKEN, sources: { github: { type: 'github', secret: SECRET } }, log: { level: 'info' } }),
  );

  // 1. Started on the idle inboxes (the index was re-derived in this boot already), then left alone.
  const first = await ServeChild.start(cli, config);
  let serve = first.serve;
  const url = first.url;
  let started: PhaseFigures;
  let active: PhaseFigures;
  try {
    started = await watchIdle(serve.pid, plan.idleSeconds);
    log(`memory: ${n} inboxes, started: ${mb(started.endRss)} MB resident (most so far ${mb(started.hwm)} MB)`);

    // 2. A delivery to each of `active` inboxes (files of their own, never linked), each run by the pool.
    const targets = Array.from({ length: Math.min(plan.active, built.distinctFiles) }, (_, i) => memoryInboxName(i));
    const watch = new MemoryWatch(serve.pid);
    const timer = startTimer();
    await deliver(url, targets, plan.concurrency);
    await until('every delivered inbox to be run', serve, () => dueInboxes(data) === 0, plan.timeoutMs);
    const busySeconds = elapsedSeconds(timer);
    const busy = watch.stop();
    const after = await watchIdle(serve.pid, plan.idleSeconds);
    active = { seconds: busySeconds, maxRss: Math.max(busy.maxRss, after.maxRss), endRss: after.endRss, hwm: after.hwm, threads: after.threads };
    log(`memory: ${n} inboxes, ${targets.length} run in ${busySeconds.toFixed(1)} s: at most ${mb(active.maxRss)} MB, then ${mb(active.endRss)} MB`);
  } finally {
    await serve.stop();
  }

  // 3. A restart as after a machine boot: the first open re-derives the index from every inbox file.
  forgetRebuild(data);
  const boot = currentBootId();
  serve = (await ServeChild.start(cli, config)).serve;
  let rebuild: PhaseFigures;
  try {
    const watch = new MemoryWatch(serve.pid);
    const timer = startTimer();
    await until('the ready index to be re-derived', serve, () => rebuiltInBoot(data) === boot, plan.timeoutMs);
    const seconds = elapsedSeconds(timer);
    const during = watch.stop();
    const after = await watchIdle(serve.pid, plan.idleSeconds);
    rebuild = { seconds, maxRss: Math.max(during.maxRss, after.maxRss), endRss: after.endRss, hwm: after.hwm, threads: after.threads };
    log(`memory: ${n} inboxes, index re-derived in ${seconds.toFixed(1)} s: at most ${mb(rebuild.maxRss)} MB, then ${mb(rebuild.endRss)} MB`);
  } finally {
    await serve.stop();
  }
  rmSync(base, { recursive: true, force: true });
  return { inboxes: n, built, activeInboxes: Math.min(plan.active, built.distinctFiles), started, active, rebuild };
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

export async function runMemoryFamily(options: { quick: boolean; out: string | null; log: (line: string) => void }): Promise<boolean> {
  const { log } = options;
  const plan = options.quick ? MEMORY_QUICK_PLAN : MEMORY_FULL_PLAN;
  const timer = startTimer();
  const scratch = mkdtempSync(join(tmpdir(), 'vigil-bench-memory-'));
  const cleanup = (): void => {
    killAllServe();
    rmSync(scratch, { recursive: true, force: true });
  };
  const interrupted = (): void => process.exit(130); // the 'exit' listener cleans up
  process.on('exit', cleanup);
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);
  try {
    log(`memory: scratch directory ${scratch}; building the package (tsc)`);
    const machine = describeMachine(scratch);
    const cli = buildPackage(scratch);
    const floor = await measureFloor(cli, plan.idleSeconds);
    log(`memory: floor: bare node ${mb(floor.bareNode.rss)} MB, node with vigil serve's modules imported ${mb(floor.modules.rss)} MB`);
    const sizes: SizeFigures[] = [];
    for (const n of plan.sizes) sizes.push(await measureSize(plan, scratch, cli, n, log));
    const run: MemoryRun = {
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      planName: options.quick ? 'quick' : 'full',
      plan,
      machine,
      floor,
      sizes,
      durationSeconds: elapsedSeconds(timer),
      loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
    };
    process.stdout.write(renderMemoryConsole(run) + '\n');
    if (options.out !== null) {
      writeBenchmarkSection(options.out, MEMORY_HEADING, renderMemorySection(run));
      log(`memory: wrote the Memory section of ${options.out}`);
    }
    return memoryTargets(run).every((t) => t.pass);
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    process.off('exit', cleanup);
    cleanup();
  }
}
