/**
 * The service benchmark's server children (service-server.ts), each in its
 * own process on 127.0.0.1, and the bookkeeping that stops every one of
 * them by its PID, also when the bench fails or is interrupted.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FromChild, ServerStats, ToChild } from './service-protocol.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..');
const SERVER_SCRIPT = join(HERE, 'service-server.ts');

const START_TIMEOUT_MS = 30_000;
const REPLY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

/** Every child started and not yet seen to exit: `killAllServers()` ends them by PID. */
const live = new Set<ChildProcess>();

export class ServerProcess {
  readonly url: string;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    url: string,
    exited: Promise<void>,
  ) {
    this.url = url;
    this.exited = exited;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * `node --import tsx service-server.ts <args>`, waiting until it listens.
   * VIGIL_BENCH_CHILD_ARGS adds Node flags to the servers, e.g. to profile
   * them: VIGIL_BENCH_CHILD_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
   */
  static async start(args: string[]): Promise<ServerProcess> {
    const child = fork(SERVER_SCRIPT, args, {
      cwd: REPO,
      execArgv: ['--import', 'tsx', ...(process.env.VIGIL_BENCH_CHILD_ARGS ?? '').split(' ').filter(Boolean)],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    live.add(child);
    const exited = new Promise<void>((resolveExit) =>
      child.once('exit', () => {
        live.delete(child);
        resolveExit();
      }),
    );
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        const timer = setTimeout(() => reject(new Error(`server child ${args[0]} did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
        child.on('message', (message: FromChild) => {
          if (message.type === 'ready') {
            clearTimeout(timer);
            resolveUrl(message.url);
          }
        });
        child.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`server child ${args[0]} exited before listening (code ${code}, signal ${signal})`));
        });
      });
      return new ServerProcess(child, url, exited);
    } catch (error) {
      killPid(child.pid);
      await exited;
      throw error;
    }
  }

  /** The child's CPU time so far, and the Vigil child's store figures. */
  async stats(): Promise<ServerStats> {
    const reply = await this.ask({ type: 'stats' }, 'stats');
    if (reply.type !== 'stats') throw new Error('server child: unexpected reply');
    return reply.stats;
  }

  /**
   * Asks the child to close its server (answering every request in flight) and exit; its final stats, or null
   * when it had already exited or did not answer within 10 s (then it is killed by PID).
   */
  async stop(): Promise<ServerStats | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return null;
    let final: ServerStats | null = null;
    try {
      const reply = await this.ask({ type: 'stop' }, 'stopped', STOP_TIMEOUT_MS);
      if (reply.type === 'stopped') final = reply.stats;
    } catch {
      this.kill();
    }
    const timer = setTimeout(() => this.kill(), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
    return final;
  }

  kill(): void {
    killPid(this.child.pid);
  }

  private ask(message: ToChild, answer: FromChild['type'], timeoutMs = REPLY_TIMEOUT_MS): Promise<FromChild> {
    return new Promise<FromChild>((resolveAnswer, reject) => {
      const timer = setTimeout(() => {
        this.child.off('message', onMessage);
        reject(new Error(`server child did not answer ${message.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (reply: FromChild): void => {
        if (reply.type !== answer) return;
        clearTimeout(timer);
        this.child.off('message', onMessage);
        resolveAnswer(reply);
      };
      this.child.on('message', onMessage);
      this.child.send(message);
    });
  }
}

function killPid(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Kills (SIGKILL, by PID) every server child still running: for error paths and signals. */
export function killAllServers(): void {
  for (const child of live) killPid(child.pid);
}
