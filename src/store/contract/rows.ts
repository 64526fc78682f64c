/**
 * The store contract, part: the rows the verbs take and give (an event as
 * it arrives, is claimed and is read; a timer; an approval; the lease), so
 * that the other parts and the event map can name them without importing
 * the verbs. The verbs are in ../contract.ts.
 */
export type EventStatus = 'pending' | 'running' | 'done' | 'dead';

/** What a source hands to `ingest`: its own unique key and the body. */
export interface NewEvent {
  source: string;
  sourceId: string;
  payload?: unknown;
}

export interface ClaimedEvent {
  id: number;
  source: string;
  sourceId: string;
  payload: unknown;
  /** Attempts including this one (counted at claim, R4). */
  attempts: number;
}

export interface EventRow extends ClaimedEvent {
  status: EventStatus;
  /** `too many attempts` for a dead event, the run's error for a retried one. */
  error: string | null;
  /** The error the last failed run reported, kept when the event dies. */
  lastError: string | null;
  receivedAt: number;
}

export type MissedPolicy = 'coalesce' | 'each';

export interface TimerSpec {
  id: string;
  /** First (or only) occurrence. Optional for cron timers: the next match after now. */
  due?: number;
  every?: number;
  cron?: string;
  tz?: string;
  payload?: Record<string, unknown>;
  /** A fixed event key, for one-off timers only. */
  key?: { source: string; sourceId: string };
  missed?: MissedPolicy;
}

export interface TimerRow {
  id: string;
  /** The next scheduled occurrence. */
  due: number;
  every: number | null;
  cron: string | null;
  tz: string | null;
  missed: MissedPolicy;
  done: boolean;
  payload: Record<string, unknown>;
  key: { source: string; sourceId: string } | null;
  /** How many occurrences the last coalesced firing passed over. */
  lastSkipped: number | null;
}

export interface ApprovalRequest {
  id: string;
  expiresInMs: number;
  action: unknown;
}

export type ApprovalAnswer = 'yes' | 'no';
export type ApprovalOutcome = ApprovalAnswer | 'expired' | 'unknown';

export interface LeaseInfo {
  holder: string;
  gen: number;
  until: number;
}
