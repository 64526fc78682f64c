/**
 * The store contract, part three: an inbox's data over its life:
 * retention and what a prune removes, and the records `exportInbox` gives
 * and `importInbox` takes. The rest is in ../contract.ts.
 */
import type { EventStatus, TimerRow } from './rows.js';
import type { InboxSettings } from './settings.js';
import type { OutboxFailureKind } from './outbox.js';
import type { ApprovalRow, OperatorAction } from './reads.js';
import type { EffectRow } from './effects.js';
import type { Usage } from './usage.js';

/**
 * How long each kind of finished row is kept, counted from when it
 * finished. Absent: kept forever, except model usage (400 days). Pending and running events, held
 * messages and open approvals are never pruned, and a pruned event's key
 * stays, as a tombstone, forever: a late redelivery is still a duplicate.
 */
export interface RetentionOptions {
  /** Done events, from their finish. */
  doneEventsMs?: number;
  /** Dead events, from when they died. */
  deadEventsMs?: number;
  /** Sent messages, from their send (a message a channel did not take is kept until it is redriven). */
  sentMessagesMs?: number;
  /** Answered (or expired) approvals, from the answer. */
  answeredApprovalsMs?: number;
  /** Operator actions, from when they were taken. */
  actionsMs?: number;
  /** Side-effect calls settled confirmed or failed (contract/effects.ts), from their settling; unknown ones stay. */
  settledEffectsMs?: number;
  /**
   * Model usage rows (one per run that used a model), from the run's finish.
   * Default 400 days (USAGE_RETENTION_MS) even when no retention is set:
   * otherwise the one table that grows for as long as an inbox runs.
   */
  usageMs?: number;
}

/** What a prune removed; `more` when it stopped at its limit with more past retention left. */
export interface PruneResult {
  events: number;
  messages: number;
  approvals: number;
  actions: number;
  effects: number;
  usage: number;
  more: boolean;
}

/**
 * One inbox's data as `exportInbox` gives it and `importInbox` takes it:
 * JSON-safe records, payloads included, in an order an import can replay.
 * Ids are not exported (a store gives its own); order is kept.
 */
export type InboxRecord =
  | { type: 'settings'; settings: InboxSettings }
  /** The lease's generation: an import continues it, so no older claim can pass the fence. */
  | { type: 'lease'; gen: number }
  | { type: 'pacing'; lastPacedAt: number | null; notBefore: number | null; day: string | null; daySends: number }
  | {
      type: 'event';
      source: string;
      sourceId: string;
      payload: unknown;
      status: EventStatus;
      attempts: number;
      error: string | null;
      lastError: string | null;
      receivedAt: number;
      finishedAt: number | null;
      claimGen: number | null;
      lastClaimAt: number | null;
    }
  /** A pruned event's key: still refused as a duplicate. */
  | { type: 'tombstone'; source: string; sourceId: string }
  | {
      type: 'message';
      body: string;
      urgent: boolean;
      channel: string | null;
      createdAt: number;
      sentAt: number | null;
      /** What channels did not take of it (redrivenAt: null while open). */
      failures: { channel: string; kind: OutboxFailureKind; error: string; failedAt: number; redrivenAt: number | null }[];
    }
  | ({ type: 'approval' } & ApprovalRow)
  | ({ type: 'timer' } & TimerRow)
  | { type: 'memory'; key: string; value: unknown; updatedAt: number }
  | { type: 'session'; state: unknown; updatedAt: number }
  | ({ type: 'action' } & OperatorAction)
  /** A call in the ledger of side effects (contract/effects.ts), with the lease generation that started it: an unknown call stays unknown. */
  | ({ type: 'effect'; gen: number | null } & Omit<EffectRow, 'unknown'>)
  /** One run's model usage, recorded by its finish at `at` (costUsd absent: unpriced). */
  | ({ type: 'usage'; at: number } & Usage);
