/**
 * The agent contract: what a run sees and what it may return. A run ends
 * one of two ways here: messages go out, or nothing does (a run that found
 * no change must not talk). Deferred tool calls build on requestApproval.
 */
import { createHash } from 'node:crypto';
import { VigilError } from '../errors.js';
import type { ApprovalRequest, ClaimedEvent, InboxStats, OutboxMessage, TimerSpec } from '../store/contract.js';

export interface AgentContext {
  readonly inboxId: string;
  /** The claimed events, oldest first. */
  readonly events: readonly ClaimedEvent[];
  /** Aborted when the lease is lost or the run times out: stop, your finish will be refused. */
  readonly signal: AbortSignal;
  readonly now: number;
  /**
   * A key for a side effect, the same on every retry: hand it to any API
   * with side effects, so a run repeated after a crash does not refund
   * twice. Pass the event the effect belongs to: a retried event is claimed
   * alone (R4), so a key over the whole batch would differ on the retry.
   * Without an event, the key covers all of this run's events.
   */
  idempotencyKey(name: string, event?: ClaimedEvent): string;
  /**
   * Asks the user. The run should end after asking; the answer (or the
   * expiry) arrives later as an event ('approval', id). Asking again for the
   * same id changes nothing. `link` is a signed one-tap approval link when
   * the service can make one.
   */
  requestApproval(request: ApprovalRequest): Promise<{ link: string | null }>;
  addTimer(timer: TimerSpec): Promise<void>;
  stats(): Promise<InboxStats>;
}

export type AgentResult = { messages: OutboxMessage[] } | { nothing: true };

export interface Agent {
  readonly name: string;
  run(ctx: AgentContext): Promise<AgentResult>;
}

export function defineAgent(agent: { name?: string; run: Agent['run'] }): Agent {
  if (typeof agent !== 'object' || agent === null || typeof agent.run !== 'function') {
    throw new VigilError('invalid_argument', 'defineAgent needs { run(ctx) }');
  }
  return { name: agent.name ?? 'agent', run: agent.run.bind(agent) };
}

/** Stable across retries: derived from the inbox, the events' source keys (not their ids) and the name. */
export function idempotencyKeyFor(inboxId: string, events: readonly Pick<ClaimedEvent, 'id' | 'source' | 'sourceId'>[], name: string): string {
  const hash = createHash('sha256');
  hash.update(inboxId);
  for (const event of [...events].sort((a, b) => a.id - b.id)) hash.update(`\u0000${event.source}\u0000${event.sourceId}`);
  hash.update(`\u0000${name}`);
  return hash.digest('base64url').slice(0, 32);
}
