/**
 * A real `vigil serve` child for the memory family: the built package under
 * plain `node`, on 127.0.0.1, its resident memory read from
 * /proc/<pid>/status while it runs. Stopped with SIGTERM (SIGKILL by PID
 * if it does not exit), also on the bench's error paths.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Every child started and not yet seen to exit, for killAllServe(). */
const live = new Set<ChildProcess>();

export interface MemorySample {
  /** VmRSS: resident now, bytes. */
  rss: number;
  /** VmHWM: the most ever resident, bytes (the kernel's own high-water mark, not a sample). */
  hwm: number;
  threads: number;
}

/** A sample of a process's memory from /proc; null once it is gone. */
export function sampleMemory(pid: number): MemorySample | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: field('VmRSS') * 1024, hwm: field('VmHWM') * 1024, threads: field('Threads') };
}

/** Samples a process every `everyMs` until stopped: the largest and the last. */
export class MemoryWatch {
  private timer: NodeJS.Timeout;
  max = 0;
  last: MemorySample | null = null;

  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.take();
    this.timer = setInterval(() => this.take(), everyMs);
  }

  private take(): void {
    const sample = sampleMemory(this.pid);
    if (sample === null) return;
    this.last = sample;
    this.max = Math.max(this.max, sample.rss);
  }

  stop(): { maxRss: number; last: MemorySample } {
    clearInterval(this.timer);
    this.take();
    if (this.last === null) throw new Error(`memory: no sample of process ${this.pid}`);
    return { maxRss: this.max, last: this.last };
  }
}

export class ServeChild {
  private output = '';
  readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    // Kept short: the example agent's replies go to stdout too.
    child.stdout!.on('data', (chunk: string) => (this.output = (this.output + chunk).slice(-20_000)));
    child.stderr!.on('data', (chunk: string) => (this.output = (this.output + chunk).slice(-20_000)));
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        live.delete(child);
        resolve(code);
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** The last of what it printed, for an error message. */
  tail(): string {
    return this.output.slice(-4_000);
  }

  /** `node <cli> serve --config <config>`, once it says where it listens. */
  static async start(cli: string, config: string, timeoutMs = 120_000): Promise<{ serve: ServeChild; url: string }> {
    const child = spawn(process.execPath, [cli, 'serve', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
    live.add(child);
    const serve = new ServeChild(child);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const url = /"msg":"vigil listening on (http:\/\/[^"]+)"/.exec(serve.output)?.[1];
      if (url !== undefined) return { serve, url };
      if (child.exitCode !== null || Date.now() > deadline) {
        serve.kill();
        throw new Error(`memory: vigil serve did not start:\n${serve.output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM, then SIGKILL by PID after 30 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.kill(), 30_000);
    await this.exited;
    clearTimeout(timer);
  }

  kill(): void {
    try {
      if (this.child.pid !== undefined) process.kill(this.child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** SIGKILLs (by PID) every serve child still running: for error paths and signals. */
export function killAllServe(): void {
  for (const child of live) {
    try {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * The floor under every figure: a plain `node` process that imports what
 * `vigil serve` loads (the built config loader, logger, service with the HTTP
 * stack, runtime and channels, the SQLite store and its driver, the example
 * agent) and starts nothing, and a bare `node` that imports nothing; each
 * sampled once it has idled `idleSeconds`. What `vigil serve` has resident
 * above the first is its own state: the open store, the server, the pool.
 */
export async function measureFloor(cli: string, idleSeconds: number): Promise<{ bareNode: MemorySample; modules: MemorySample }> {
  const dist = dirname(dirname(cli));
  const modules = ['config/load-config.js', 'observability/logger.js', 'service/service.js', 'service/run-until-signal.js', 'store/sqlite/sqlite-store.js', 'demo/demo-agent.js'];
  const imports = modules.map((m) => `await import(${JSON.stringify(pathToFileURL(join(dist, m)).href)});`).join(' ');
  const sample = async (script: string): Promise<MemorySample> => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', `${script} process.stdout.write('ready\\n'); setInterval(() => {}, 1 << 30);`], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    live.add(child);
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.once('data', () => resolve());
        child.once('exit', (code) => reject(new Error(`memory: the floor process exited (code ${code}) before it was ready`)));
      });
      await new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000));
      const taken = sampleMemory(child.pid!);
      if (taken === null) throw new Error('memory: the floor process is gone');
      return taken;
    } finally {
      child.kill('SIGKILL');
      live.delete(child);
    }
  };
  return { bareNode: await sample(''), modules: await sample(imports) };
}
