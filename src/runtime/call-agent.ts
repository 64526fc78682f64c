/**
 * One call of `agent.run`, bounded. The agent gets an AbortSignal, but a
 * signal is a request: an agent stuck in a loop that never looks at it
 * would hold the worker slot (and, with a heartbeat, the inbox) forever.
 * So the worker stops *waiting* when the signal fires and records the
 * outcome itself; whatever the agent returns later is ignored, and the
 * fence (R3) refuses anything it tries to finish on its own.
 */
import { isTerminalError, type Agent, type AgentContext, type AgentResult } from '../agent/agent.js';
import { checkUsage } from '../agent/usage.js';
import type { Usage } from '../store/contract.js';
import { abortReason, type AbortReason } from './run-abort.js';

export type AgentOutcome =
  | { kind: 'result'; result: AgentResult }
  /** terminal: thrown as a TerminalError, so the events go dead at once. */
  | { kind: 'error'; error: string; terminal?: boolean }
  | { kind: 'aborted'; reason: AbortReason };

export async function callAgent(agent: Agent, ctx: AgentContext): Promise<AgentOutcome> {
  const { signal } = ctx;
  const aborted = (): AgentOutcome => ({ kind: 'aborted', reason: abortReason(signal) ?? 'shutdown' });
  if (signal.aborted) return aborted();

  let onAbort: (() => void) | undefined;
  const abortedWhileRunning = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  // Promise.resolve().then: an agent that throws before its first await is a rejection too.
  const running = Promise.resolve().then(() => agent.run(ctx));
  running.catch(() => undefined); // it may reject after we stopped waiting
  try {
    const first = await Promise.race([running, abortedWhileRunning]);
    if (first === 'aborted' || signal.aborted) return aborted();
    return checkResult(first);
  } catch (error) {
    // An agent that honours the signal usually throws an AbortError: the abort is the outcome.
    if (signal.aborted) return aborted();
    return { kind: 'error', error: describeError(error), terminal: isTerminalError(error) };
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

function checkResult(value: unknown): AgentOutcome {
  if (typeof value === 'object' && value !== null) {
    const result = value as Record<string, unknown>;
    let usage: { usage?: Usage } = {};
    try {
      if (result.usage !== undefined) usage = { usage: checkUsage(result.usage, 'the result\'s usage') };
    } catch (error) {
      return { kind: 'error', error: describeError(error) };
    }
    if (result.nothing === true) return { kind: 'result', result: { nothing: true, ...usage } };
    if (Array.isArray(result.messages)) return { kind: 'result', result: { ...(value as AgentResult), ...usage } };
  }
  return { kind: 'error', error: 'the agent returned neither { messages: [...] } nor { nothing: true }' };
}

/** Unknown thrown values are coerced once, here, into the text a dead event keeps. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message === '' ? error.name : error.message;
  if (typeof error === 'string') return error;
  try {
    return `non-error thrown: ${JSON.stringify(error)}`;
  } catch {
    return `non-error thrown: ${String(error)}`;
  }
}
