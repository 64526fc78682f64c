/**
 * The Python reference (../shared/reference/inbox.py) on the same work, in a
 * child process running python/reference_bench.py, which imports inbox.py
 * from where it lives. One JSON line per step each way, so the caller can
 * interleave the two sides' repetitions.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { BenchSide, CycleParams, CycleResult, DispatchResult, IngestResult, PassResult, SchedulerParams, Timed } from './workload.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const SCRIPT = join(BENCH_DIR, 'python', 'reference_bench.py');

/** `../shared/reference` beside the repository, unless told otherwise. */
export const DEFAULT_REFERENCE_DIR = resolve(BENCH_DIR, '..', '..', 'shared', 'reference');

export interface PythonInfo {
  python: string;
  sqlite: string;
  reference: string;
  journal_mode: string;
  synchronous: number;
  default_synchronous: number;
  forced_synchronous: boolean;
}

/** Why the reference cannot run here, or null when it can. */
export function referenceUnavailable(referenceDir: string, python: string): string | null {
  if (!existsSync(join(referenceDir, 'inbox.py'))) return `no inbox.py in ${referenceDir}`;
  const probe = spawnSync(python, ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) return `${python} could not be run`;
  return null;
}

export class PythonReferenceSide implements BenchSide {
  readonly label = 'Python reference';
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly replies: AsyncIterator<string>;

  private constructor(python: string, referenceDir: string, tmp: string, synchronous: 'full' | 'normal' | null) {
    // -B: importing inbox.py must not leave a __pycache__ in the reference folder.
    const args = ['-B', SCRIPT, '--reference', referenceDir, '--tmp', tmp, ...(synchronous === null ? [] : ['--synchronous', synchronous])];
    this.child = spawn(python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.pipe(process.stderr);
    this.replies = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  /** `synchronous` null runs the reference as it is (the benchmark); a value is for diagnostics. */
  static async start(
    python: string,
    referenceDir: string,
    tmp: string,
    synchronous: 'full' | 'normal' | null = null,
  ): Promise<{ side: PythonReferenceSide; info: PythonInfo }> {
    const side = new PythonReferenceSide(python, referenceDir, tmp, synchronous);
    const info = (await side.call('hello', {})) as unknown as PythonInfo;
    return { side, info };
  }

  async ingest(n: number): Promise<IngestResult> {
    return (await this.call('ingest', { n })) as unknown as IngestResult;
  }

  async ingestMany(n: number, batch: number): Promise<IngestResult> {
    return (await this.call('ingest_many', { n, batch })) as unknown as IngestResult;
  }

  async cycle(params: CycleParams): Promise<CycleResult> {
    return (await this.call('cycle', { ...params })) as unknown as CycleResult;
  }

  async setupScheduler(params: SchedulerParams): Promise<Timed> {
    return (await this.call('sched_setup', { ...params })) as unknown as Timed;
  }

  async schedulerPass(name: string): Promise<PassResult> {
    return (await this.call('sched_pass', { name })) as unknown as PassResult;
  }

  async idlePasses(name: string, passes: number): Promise<number[]> {
    return ((await this.call('sched_idle', { name, passes })) as { times: number[] }).times;
  }

  async dropScheduler(name: string): Promise<void> {
    await this.call('sched_drop', { name });
  }

  async dispatch(messages: number): Promise<DispatchResult> {
    return (await this.call('dispatch', { messages })) as unknown as DispatchResult;
  }

  async dispatchSpread(inboxes: number): Promise<DispatchResult> {
    return (await this.call('dispatch_spread', { inboxes })) as unknown as DispatchResult;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((done) => this.child.once('exit', () => done()));
    this.child.stdin.end(JSON.stringify({ op: 'bye' }) + '\n');
    await exited;
  }

  /** Kills the child (by its own pid) when the run is aborted. */
  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
  }

  private async call(op: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.child.stdin.write(JSON.stringify({ op, ...params }) + '\n');
    const next = await this.replies.next();
    if (next.done === true) throw new Error(`the Python reference bench exited during ${op} (code ${String(this.child.exitCode)})`);
    const reply = JSON.parse(next.value) as Record<string, unknown>;
    if (typeof reply.error === 'string') throw new Error(`Python reference, ${op}: ${reply.error}`);
    return reply;
  }
}
