/**
 * The typed events of a running service. Logs, metrics and tests subscribe
 * to the same stream; tests await an event instead of sleeping.
 */
import type { DecisionRecord } from '../agent/tools.js';
import { EventEmitter, once } from 'node:events';

export interface RuntimeEventMap {
  'event:ingested': { inboxId: string; source: string; sourceId: string; stored: boolean };
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
  };
  /** Events a screening step refused: dead at once with the reason. */
  'run:screened': { inboxId: string; gen: number; eventIds: number[]; reason: string };
  'lease:acquired': { inboxId: string; gen: number; takeover: boolean };
  'lease:lost': { inboxId: string; gen: number };
  'scheduler:fired': { inboxId: string; due: number };
  /** An operator asked for the held messages to go now (the dashboard's "send now"). */
  'outbox:expedited': { inboxId: string; count: number };
  'outbox:sent': { inboxId: string; count: number; channels: string[] };
  /** At-most-once delivery only: a channel failed, and these messages will not be sent to it again. */
  'outbox:lost': { inboxId: string; channel: string; count: number; error: string };
  'channel:failed': { inboxId: string; channel: string; error: string; retryInMs: number };
  'approval:answered': { inboxId: string; approvalId: string; outcome: string };
}

export type RuntimeEventName = keyof RuntimeEventMap;

export class RuntimeEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<K extends RuntimeEventName>(name: K, payload: RuntimeEventMap[K]): void {
    this.emitter.emit(name, payload);
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
