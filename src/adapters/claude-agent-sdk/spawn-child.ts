/**
 * Claude Code runs as a child process of the run, in a process group of its
 * own, so that aborting the run (lease lost, timeout, shutdown) kills it and
 * everything it started (a Bash command, an MCP server): the SDK's own
 * spawn kills the child alone, after a grace period, and a grandchild would
 * go on with its side effects after the run was given up.
 *
 * The group is not enough: Claude Code starts each Bash command in a
 * session of its own (setsid), out of the child's group (seen with the
 * bundled 2.1.337). So the kill first finds every descendant in /proc
 * (Linux; elsewhere the group kill is what there is) while they are still
 * the child's, then kills each one's group and itself.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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
    for (const target of [pid, ...descendants(pid)]) {
      signalGroupAndProcess(target);
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

function signalGroupAndProcess(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Not a group leader, or gone already.
    }
  }
}

/** Every process below `root`, from /proc's parent links; empty where there is no /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}
