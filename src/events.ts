/**
 * The one event map of a running Vigil: what the engine did to an inbox
 * (an event stored, a lease taken, events gone dead, timers fired) and what
 * the runtime did around it (a run started or finished, a lease lost, a
 * channel failed). Logs and metrics (src/observability/) and tests all
 * subscribe to the same stream; tests await an event instead of sleeping.
 *
 * A listener that throws never breaks the operation that emitted: the write
 * has committed by then, and a failing log line must not turn it into an
 * error its caller retries.
 */
import type { DecisionRecord } from './store/contract/decisions.js';
import type { Usage } from './store/contract/usage.js';
import type { SpendReason } from './store/contract/budget.js';
import type { OutboxFailureKind } from './store/contract/outbox.js';
import { EventEmitter, once } from 'node:events';

/** An event that went dead, as the warning about it names it. */
export interface DeadEvent {
  id: number;
  /** Null where the store did not read them: a finish that sends its own events dead names them by id. */
  source: string | null;
  sourceId: string | null;
  attempts: number | null;
  /** The error its last failed run reported, if any. */
  lastError: string | null;
}

export interface RuntimeEventMap {
  /** One per event handed to ingest: stored, or refused as a duplicate (R1). */
  'event:ingested': { inboxId: string; source: string; sourceId: string; stored: boolean };
  /** An event from outside refused by its inbox's quota (contract/limits.ts), nothing stored: the sender hears 429. */
  'ingest:refused': { inboxId: string; source: string; reason: 'inbox_full' | 'rate_limited' };
  /** A webhook delivery refused before anything was stored: `known` is false for a source name no config has (anyone can vary it). */
  'webhook:refused': { source: string; known: boolean; reason: string; message: string };
  'run:started': { inboxId: string; gen: number; eventIds: number[] };
  'run:finished': {
    inboxId: string;
    gen: number;
    eventIds: number[];
    /** messages / nothing: recorded; error, timeout: retried later; dead: a terminal error; refused: the lease was lost first. */
    outcome: 'messages' | 'nothing' | 'error' | 'dead' | 'timeout' | 'refused';
    durationMs: number;
    error?: string;
    /** The permission decision on each tool call of the run. */
    decisions?: DecisionRecord[];
    /** What the run's model calls used, priced (agent/prices.ts): what it recorded with ctx.recordUsage, else its result's usage. Also on a refused run: spent, though not recorded. */
    usage?: Usage;
  };
  /** Events a screening step refused: dead at once with the reason. */
  'run:screened': { inboxId: string; gen: number; eventIds: number[]; reason: string };
  /** R2: a lease taken or renewed; `takeover` when events of an older generation were still running (a worker died or stalled). */
  'lease:acquired': { inboxId: string; gen: number; takeover: boolean };
  'lease:lost': { inboxId: string; gen: number };
  /** R4/R6: events parked as dead, by a claim (`too many attempts`) or by a finish that said so (its error). */
  'events:dead': { inboxId: string; error: string; events: DeadEvent[] };
  /** R7: a scheduler pass turned `due` timers and expired approvals into events. */
  'scheduler:fired': { inboxId: string; due: number };
  /** R8: the answer (or expiry) that stands. */
  'approval:answered': { inboxId: string; approvalId: string; outcome: 'yes' | 'no' | 'expired' };
  /** An approval's reminder handled by the runtime (runtime/approval-reminders.ts): sent, or not (answered or expired meanwhile). */
  'approval:reminded': { inboxId: string; approvalId: string; sent: boolean };
  /** The ledger (contract/effects.ts): an unknown side-effect call was settled by hand (the agent, a person's answer, an operator). */
  'effect:settled': { inboxId: string; key: string; state: 'confirmed' | 'failed' };
  /** An operator asked for the held messages to go now (the dashboard's "send now"). */
  'outbox:expedited': { inboxId: string; count: number };
  /** R9: a dispatch recorded `count` messages as sent; `held` are still waiting in that inbox. */
  'outbox:dispatched': { inboxId: string; count: number; held: number };
  'outbox:sent': { inboxId: string; count: number; channels: string[] };
  /** A channel did not take these messages for good (rejected, or no address for it): kept, visible, redrivable. */
  'outbox:failed': { inboxId: string; channel: string; kind: OutboxFailureKind; messageIds: number[]; error: string };
  /** One channel took a batch of `count` messages (a batch some channels took and others did not is sent again to the others only). */
  'channel:delivered': { inboxId: string; channel: string; count: number };
  /** At-most-once delivery only: a channel failed, and these messages will not be sent to it again. */
  'outbox:lost': { inboxId: string; channel: string; count: number; error: string };
  'channel:failed': { inboxId: string; channel: string; error: string; retryInMs: number };
  /** A message for the operator, sent once to one of the operator's channels (runtime/operator-messages.ts). */
  'operator:sent': { id: string; channel: string; status: 'delivered' | 'retry' | 'rejected' | 'uncertain'; error?: string };
  /** Retention: what one prune call removed (it runs in small batches; one event per batch that removed anything). */
  'store:pruned': { events: number; messages: number; approvals: number; actions: number; effects: number; usage: number; more: boolean };
  /** Everything of an inbox removed, tombstones included (a deletion request). */
  'inbox:deleted': { inboxId: string };
  /**
   * A write that only finishes something begun before the inbox was deleted
   * (a dispatcher's record of a send) found the inbox gone: refused, so that
   * nothing recreates a deleted user. Once per refused write.
   */
  'inbox:write-refused': { inboxId: string; write: 'send record'; reason: 'deleted' };
  /** The inbox's budget is spent: its events wait until `until` (the next local day or month), or until the budget is raised. */
  'inbox:paused-for-spend': { inboxId: string; reason: SpendReason; until: number };
  /** An inbox recreated from exported records. */
  'inbox:imported': { inboxId: string; records: number };
  /**
   * Whether the store takes writes, as `/healthz` says it (http/write-health.ts), when that changes;
   * `error` is the detail `/healthz` leaves out (it may name a path).
   */
  'store:health': { status: 'ok' | 'degraded'; reason: 'store_unreachable' | 'store_unwritable' | null; error: string | null };
  /** A write to this inbox failed while the store takes others: the inbox is marked, the instance stays healthy. */
  'inbox:writes-failing': { inboxId: string; error: string };
  /** A write to a marked inbox worked again. */
  'inbox:writes-recovered': { inboxId: string };
}

export type RuntimeEventName = keyof RuntimeEventMap;

export class RuntimeEvents {
  private readonly emitter = new EventEmitter();

  /** `onListenerError` hears what a listener threw (the service logs it); the emit goes on regardless. */
  constructor(public onListenerError: (error: unknown, name: RuntimeEventName) => void = () => undefined) {
    this.emitter.setMaxListeners(0);
  }

  emit<K extends RuntimeEventName>(name: K, payload: RuntimeEventMap[K]): void {
    // Not emitter.emit: it stops at the first listener that throws, and rethrows into the caller.
    // rawListeners: a once() listener's wrapper, which removes itself when called.
    for (const listener of this.emitter.rawListeners(name)) {
      try {
        (listener as (payload: RuntimeEventMap[K]) => void)(payload);
      } catch (error) {
        try {
          this.onListenerError(error, name);
        } catch {
          // Nothing left to tell.
        }
      }
    }
  }

  /** True when someone listens: an emitter can skip building a payload nobody reads. */
  has(name: RuntimeEventName): boolean {
    return this.emitter.listenerCount(name) > 0;
  }

  on<K extends RuntimeEventName>(name: K, listener: (payload: RuntimeEventMap[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }

  /** Resolves with the first `name` event that passes `filter`. */
  async next<K extends RuntimeEventName>(name: K, filter: (payload: RuntimeEventMap[K]) => boolean = () => true, signal?: AbortSignal): Promise<RuntimeEventMap[K]> {
    for (;;) {
      const [payload] = (await once(this.emitter, name, { signal })) as [RuntimeEventMap[K]];
      if (filter(payload)) return payload;
    }
  }
}
