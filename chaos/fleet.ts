/**
 * The worker processes: K slots, each running one child at a time. A child
 * that dies (killed by us, by itself at a crash point, or by a poison
 * event) is replaced with a new one under a new holder name, as a
 * supervisor would restart it. Every child is killed by PID at stop().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { StoreOptions } from '../src/store/contract.js';
import type { ChaosPoint } from './crash-points.js';
import { readJournal } from './journal.js';
import type { ParentMessage, WorkerConfig } from './worker.js';

/** How a worker that died on its own died: its journal's last crash record (null: not a crash point). */
function lastCrash(journalFile: string): 'poison' | 'point' | null {
  const crashes = readJournal(journalFile).filter((r) => r.k === 'crash');
  const last = crashes[crashes.length - 1];
  return last === undefined ? null : last.point === 'poison' ? 'poison' : 'point';
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

export interface FleetOptions {
  workers: number;
  storeUrl: string;
  storeOptions: StoreOptions;
  journalDir: string;
  concurrency: number;
  leaseTtlMs: number;
  atMostOnce: boolean;
  random: () => number;
  log: (line: string) => void;
}

interface Worker {
  slot: number;
  holder: string;
  journalFile: string;
  /** Crash points armed here that have not fired yet (as far as we know: it is alive). */
  armed: number;
  proc: ChildProcess;
  ready: boolean;
  readyAt: number;
  exited: Promise<void>;
  stderr: string;
}

export interface FleetCounts {
  started: number;
  /** SIGKILLs sent by the parent at a random moment. */
  killedAtRandom: number;
  /** SIGKILLs sent by the parent when a worker asked at in-finish / in-dispatch. */
  killedOnRequest: number;
  /** Children that ended any other way than our SIGKILL: crash points, poison, errors. */
  diedOnTheirOwn: number;
  /** Kills delivered: our SIGKILLs while running plus crash points that fired (poison excluded). */
  kills: number;
  /** Children killed by a poison event. */
  poisoned: number;
  /** Milliseconds from spawn to `ready`, per worker that got there. */
  startMs: number[];
  /** Children that exited with a code (an error, not a kill): each one is a failure to look at. */
  exitedWithCode: { holder: string; code: number; stderr: string }[];
}

export class Fleet {
  readonly counts: FleetCounts = { started: 0, killedAtRandom: 0, killedOnRequest: 0, diedOnTheirOwn: 0, kills: 0, poisoned: 0, startMs: [], exitedWithCode: [] };
  /** Holders whose process ended while the fleet was running (not at stop()). */
  readonly diedDuringRun = new Set<string>();
  private readonly live = new Map<number, Worker>();
  private readonly killedByUs = new Set<ChildProcess>();
  private readonly incarnations: number[];
  private running = false;
  private calm = false;

  constructor(private readonly options: FleetOptions) {
    this.incarnations = Array.from({ length: options.workers }, () => 0);
  }

  start(): void {
    this.running = true;
    for (let slot = 0; slot < this.options.workers; slot++) this.spawn(slot);
  }

  /** Live children that finished starting. */
  get readyCount(): number {
    return [...this.live.values()].filter((w) => w.ready).length;
  }

  /** Crash points armed in live workers, not fired yet. */
  get armedOutstanding(): number {
    return [...this.live.values()].reduce((sum, w) => sum + w.armed, 0);
  }

  /** SIGKILLs a random ready worker now; false if none is ready. */
  killRandom(minLifeMs = 0): boolean {
    const worker = this.pick(minLifeMs);
    if (worker === null) return false;
    this.kill(worker);
    this.counts.killedAtRandom += 1;
    this.counts.kills += 1;
    return true;
  }

  /** Arms `point` in a random ready worker; false if none is ready. */
  arm(point: ChaosPoint): boolean {
    const worker = this.pick();
    if (worker === null) return false;
    this.send(worker, { type: 'arm', point });
    worker.armed += 1;
    return true;
  }

  /** The drain: no armed point fires any more (poison still kills). */
  disarm(): void {
    this.calm = true;
    for (const worker of this.live.values()) {
      this.send(worker, { type: 'disarm' });
      worker.armed = 0;
    }
  }

  /** SIGKILLs every child by PID and waits for them to be gone; nothing is restarted. */
  async stop(): Promise<void> {
    this.running = false;
    const workers = [...this.live.values()];
    for (const worker of workers) this.kill(worker);
    await Promise.all(workers.map((w) => w.exited));
  }

  private pick(minLifeMs = 0): Worker | null {
    const now = performance.now();
    const ready = [...this.live.values()].filter((w) => w.ready && now - w.readyAt >= minLifeMs);
    return ready.length === 0 ? null : ready[Math.floor(this.options.random() * ready.length)]!;
  }

  private kill(worker: Worker): void {
    if (worker.proc.exitCode !== null || worker.proc.signalCode !== null || worker.proc.pid === undefined) return;
    this.killedByUs.add(worker.proc);
    worker.ready = false;
    try {
      process.kill(worker.proc.pid, 'SIGKILL');
    } catch {
      // Gone between the check and the signal.
    }
  }

  private send(worker: Worker, message: ParentMessage): void {
    if (worker.proc.connected) worker.proc.send(message, () => undefined);
  }

  private spawn(slot: number): void {
    const incarnation = (this.incarnations[slot] = this.incarnations[slot]! + 1);
    const holder = `w${slot}.${incarnation}`;
    const journalFile = join(this.options.journalDir, `${holder}.jsonl`);
    const config: WorkerConfig = {
      storeUrl: this.options.storeUrl,
      storeOptions: this.options.storeOptions,
      holder,
      journalFile,
      concurrency: this.options.concurrency,
      leaseTtlMs: this.options.leaseTtlMs,
      atMostOnce: this.options.atMostOnce,
    };
    const spawnedAt = performance.now();
    const proc = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(config)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.counts.started += 1;
    let resolveExit!: () => void;
    const worker: Worker = { slot, holder, journalFile, armed: 0, proc, ready: false, readyAt: 0, exited: new Promise((r) => (resolveExit = r)), stderr: '' };
    this.live.set(slot, worker);
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      worker.stderr = (worker.stderr + chunk).slice(-4_000);
    });
    proc.on('message', (message: { type?: string }) => {
      if (message.type === 'ready') {
        worker.ready = true;
        worker.readyAt = performance.now();
        this.counts.startMs.push(worker.readyAt - spawnedAt);
        if (this.calm) this.send(worker, { type: 'disarm' });
      }
      if (message.type === 'kill-me') {
        this.kill(worker);
        this.counts.killedOnRequest += 1;
        if (this.running) this.counts.kills += 1;
      }
    });
    proc.on('error', (error) => this.options.log(`${holder}: ${String(error)}`));
    proc.on('exit', (code, signal) => {
      if (this.live.get(slot) === worker) this.live.delete(slot);
      const ours = this.killedByUs.delete(proc);
      if (this.running) {
        this.diedDuringRun.add(holder);
        const cause = ours ? null : lastCrash(journalFile); // ours were counted when sent
        if (cause === 'poison') this.counts.poisoned += 1;
        else if (cause !== null) this.counts.kills += 1;
      }
      if (!ours) this.counts.diedOnTheirOwn += 1;
      if (code !== null && code !== 0) {
        this.counts.exitedWithCode.push({ holder, code, stderr: worker.stderr });
        this.options.log(`${holder} exited with code ${code}:\n${worker.stderr}`);
      } else if (signal !== 'SIGKILL' && this.running) {
        this.options.log(`${holder} ended (${signal ?? code})`);
      }
      resolveExit();
      // A short pause, as a supervisor's restart delay: never a tight respawn loop.
      if (this.running) setTimeout(() => this.running && !this.live.has(slot) && this.spawn(slot), 100);
    });
  }
}
