/**
 * Claude Code runs as a child process of the run, in a process group of its
 * own, so that aborting the run (lease lost, timeout, shutdown) kills it and
 * everything it started (a Bash command, an MCP server): the SDK's own
 * spawn kills the child alone, after a grace period, and a grandchild would
 * go on with its side effects after the run was given up.
 */
import { spawn } from 'node:child_process';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';

export interface ChildHandle {
  spawn(options: SpawnOptions): SpawnedProcess;
  /** Kills the child's whole process group (idempotent). */
  kill(): void;
  /** The last lines the child wrote to stderr, for an error message. */
  stderrTail(): string;
  /** The child's pid, once spawned. */
  readonly pid: number | undefined;
}

const TAIL_CHARS = 2_000;

export function childHandle(signal: AbortSignal): ChildHandle {
  let pid: number | undefined;
  let tail = '';
  const kill = (): void => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  };
  signal.addEventListener('abort', kill, { once: true });
  return {
    get pid() {
      return pid;
    },
    spawn(options) {
      signal.throwIfAborted();
      // detached: a process group led by the child, so kill(-pid) reaches its descendants.
      const child = spawn(options.command, options.args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      pid = child.pid;
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        tail = (tail + chunk).slice(-TAIL_CHARS);
      });
      // The SDK's forwarded signal fires after its graceful close: the group goes with the child.
      options.signal.addEventListener('abort', kill, { once: true });
      child.once('exit', () => signal.removeEventListener('abort', kill));
      return child;
    },
    kill,
    stderrTail: () => tail,
  };
}
