/**
 * The worker processes of one side: N slots, each running one child at a
 * time. A child the soak SIGKILLs (by PID) is restarted in its slot after a
 * short pause, as a supervisor would; a child that dies on its own is
 * restarted too, and counted, since nothing here should make one die.
 * stop() SIGKILLs every child by PID and waits for each to be gone; a
 * parent that exits any other way kills them from its 'exit' handler, and
 * each child leaves by itself when its IPC channel to the parent closes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { REPO } from './config.js';
import type { FromChild } from './protocol.js';

const START_TIMEOUT_MS = 120_000;
/** The supervisor's restart delay: never a tight respawn loop. */
const RESTART_DELAY_MS = 1_000;

/** Every child alive, of every fleet: the last-resort cleanup kills them by PID. */
const alive = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of alive) if (child.pid !== undefined) killPid(child.pid);
});

export interface Child {
  slot: number;
  /** slot.incarnation, e.g. "vigil-w1.3": also the Vigil holder name. */
  name: string;
  pid: number | undefined;
  ready: boolean;
  readyAt: number;
  exited: Promise<void>;
  /** graphile: its workers' ids (for forceUnlockWorkers). */
  workerIds: string[];
}

export interface FleetOptions {
  side: string;
  script: string;
  workers: number;
  /** The child's one argument (JSON), given its name. */
  argFor(name: string): unknown;
  onMessage(message: FromChild, child: Child): void;
  /** After a child is gone, before its slot restarts (graphile: unlock its jobs). */
  onExit?(child: Child, killedByUs: boolean): Promise<void>;
  log(line: string): void;
}

export interface FleetCounts {
  started: number;
  killed: number;
  /** Children that ended without our SIGKILL: each is a failure to look at. */
  diedOnTheirOwn: { name: string; code: number | null; signal: string | null; stderr: string }[];
}

interface Running extends Child {
  proc: ChildProcess;
  stderr: string;
  /** CPU seconds at its last reading (a killed child's last reading stays counted). */
  cpuSeconds: number;
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times: 100 on every mainstream build. */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of a process so far, from /proc; null where there is no /proc or it is gone. */
function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

export class Fleet {
  readonly counts: FleetCounts = { started: 0, killed: 0, diedOnTheirOwn: [] };
  private readonly live = new Map<number, Running>();
  private readonly incarnations: number[];
  private readonly killedByUs = new Set<ChildProcess>();
  private running = false;
  private readonly restarts = new Set<NodeJS.Timeout>();
  /** CPU seconds of children that are gone. */
  private retiredCpuSeconds = 0;

  constructor(private readonly options: FleetOptions) {
    this.incarnations = Array.from({ length: options.workers }, () => 0);
  }

  /** Starts every slot and waits until each child says ready. */
  async start(): Promise<void> {
    this.running = true;
    for (let slot = 0; slot < this.options.workers; slot++) this.spawn(slot);
    const deadline = performance.now() + START_TIMEOUT_MS;
    while (this.readyCount < this.options.workers) {
      if (performance.now() > deadline) throw new Error(`${this.options.side}: the workers did not all start within ${START_TIMEOUT_MS / 1000} s`);
      const died = this.counts.diedOnTheirOwn[0];
      if (died !== undefined) throw new Error(`${this.options.side}: ${died.name} died while starting (code ${died.code}):\n${died.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  get readyCount(): number {
    return [...this.live.values()].filter((c) => c.ready).length;
  }

  /** CPU seconds (user + system) all of this side's worker processes have used so far; NaN without /proc. */
  cpuSeconds(): number {
    let total = this.retiredCpuSeconds;
    for (const child of this.live.values()) {
      const now = child.pid === undefined ? null : cpuSecondsOf(child.pid);
      if (now !== null) child.cpuSeconds = now;
      total += child.cpuSeconds;
    }
    return process.platform === 'linux' ? total : Number.NaN;
  }

  /** SIGKILLs the ready child that has run longest (so kills go round the slots); null if none is ready. */
  killOne(): Child | null {
    const ready = [...this.live.values()].filter((c) => c.ready).sort((a, b) => a.readyAt - b.readyAt);
    const victim = ready[0];
    if (victim === undefined) return null;
    this.kill(victim);
    this.counts.killed += 1;
    return victim;
  }

  /** SIGKILLs every child by PID, restarts nothing, and waits until all are gone. */
  async stop(): Promise<void> {
    this.running = false;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    const children = [...this.live.values()];
    for (const child of children) this.kill(child);
    await Promise.all(children.map((c) => c.exited));
  }

  private kill(child: Running): void {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null || child.pid === undefined) return;
    this.killedByUs.add(child.proc);
    child.ready = false;
    child.cpuSeconds = cpuSecondsOf(child.pid) ?? child.cpuSeconds;
    killPid(child.pid);
  }

  private spawn(slot: number): void {
    const incarnation = (this.incarnations[slot] = this.incarnations[slot]! + 1);
    const name = `${this.options.side}-w${slot}.${incarnation}`;
    const proc = spawn(process.execPath, ['--import', 'tsx', this.options.script, JSON.stringify(this.options.argFor(name))], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    alive.add(proc);
    this.counts.started += 1;
    let resolveExit!: () => void;
    const child: Running = { slot, name, pid: proc.pid, ready: false, readyAt: 0, exited: new Promise((r) => (resolveExit = r)), workerIds: [], proc, stderr: '', cpuSeconds: 0 };
    this.live.set(slot, child);
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (chunk: string) => {
      child.stderr = (child.stderr + chunk).slice(-4_000);
    });
    proc.on('message', (message: FromChild) => {
      if (message.type === 'ready') {
        child.ready = true;
        child.readyAt = performance.now();
      } else if (message.type === 'graphile-workers') {
        child.workerIds.push(...message.ids);
      }
      this.options.onMessage(message, child);
    });
    proc.on('error', (error) => this.options.log(`${name}: ${String(error)}`));
    proc.on('exit', (code, signal) => {
      alive.delete(proc);
      if (this.live.get(slot) === child) this.live.delete(slot);
      this.retiredCpuSeconds += child.cpuSeconds;
      const ours = this.killedByUs.delete(proc);
      if (!ours) {
        this.counts.diedOnTheirOwn.push({ name, code, signal, stderr: child.stderr });
        this.options.log(`${name} ended by itself (code ${code}, signal ${signal}):\n${child.stderr}`);
      }
      void (async () => {
        try {
          await this.options.onExit?.(child, ours);
        } catch (error) {
          this.options.log(`${name}: after its exit: ${String(error)}`);
        }
        resolveExit();
        if (!this.running) return;
        const timer = setTimeout(() => {
          this.restarts.delete(timer);
          if (this.running && !this.live.has(slot)) this.spawn(slot);
        }, RESTART_DELAY_MS);
        this.restarts.add(timer);
      })();
    });
  }
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone between the check and the signal.
  }
}
