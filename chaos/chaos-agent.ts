/**
 * The agent every worker runs. What it does depends on the event, and on
 * the attempt for some, so the expected end state of every event is known
 * in advance:
 *
 *   healthy   one reply                                  → done, one message
 *   poison    SIGKILLs its own process, every attempt    → dead after maxAttempts
 *   throwing  throws, every attempt                      → dead after maxAttempts
 *   flaky     throws on its first attempt, then replies  → done, one message
 *   slow      first attempt: stalls the whole process    → done, one message
 *             (Atomics.wait: no timer, no heartbeat runs)
 *             past the lease TTL, so its finish is refused
 *   ask       asks for an approval and replies           → done, one message;
 *                                                          the answer (or expiry)
 *                                                          comes as an event
 *   timer / approval events                              → done, one message
 *
 * One message per event in the batch, naming the event: the checks match
 * every message to its event by body.
 */
import { defineAgent, type Agent } from '../src/agent/agent.js';
import type { ClaimedEvent } from '../src/store/contract.js';
import { dieNow } from './crash-points.js';

export type EventKind = 'healthy' | 'poison' | 'throwing' | 'flaky' | 'slow' | 'ask';

export interface ChaosPayload {
  kind: EventKind;
  /** slow: how long the first attempt stalls its process. */
  stallMs?: number;
  /** ask: the approval's window. */
  expiresInMs?: number;
}

export const replyBody = (inboxId: string, event: Pick<ClaimedEvent, 'source' | 'sourceId'>): string =>
  `reply ${inboxId} ${event.source}/${event.sourceId}`;

export const approvalId = (sourceId: string): string => `ap-${sourceId}`;

function kindOf(event: ClaimedEvent): EventKind {
  if (event.source !== 'chaos') return 'healthy';
  return (event.payload as ChaosPayload).kind;
}

export function chaosAgent(onPoison: (inboxId: string, event: ClaimedEvent) => void): Agent {
  return defineAgent({
    name: 'chaos',
    async run(ctx) {
      for (const event of ctx.events) {
        const kind = kindOf(event);
        if (kind === 'poison') {
          onPoison(ctx.inboxId, event);
          await dieNow();
        }
        if (kind === 'throwing') throw new Error(`chaos: ${event.sourceId} throws on every attempt`);
        if (kind === 'flaky' && event.attempts === 1) throw new Error(`chaos: ${event.sourceId} throws on its first attempt`);
      }
      for (const event of ctx.events) {
        const payload = event.payload as ChaosPayload;
        if (kindOf(event) === 'slow' && event.attempts === 1) stall(payload.stallMs ?? 0);
        if (kindOf(event) === 'ask') {
          await ctx.requestApproval({ id: approvalId(event.sourceId), expiresInMs: payload.expiresInMs ?? 60_000, action: { event: event.sourceId } });
        }
      }
      return { messages: ctx.events.map((event) => replyBody(ctx.inboxId, event)) };
    },
  });
}

/** Blocks the whole process, as a long GC pause or a SIGSTOP would: its lease heartbeat cannot run. */
function stall(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
