/**
 * The store contract, part two: what a person reads about inboxes (the
 * dashboard, the CLI). A read model beside the engine's verbs: each read
 * costs what its page or window holds, not the inbox's history. The rest
 * of the contract, and the rules all of it keeps, are in ../contract.ts.
 */
import type { OutboxFailure } from './outbox.js';
import type { ApprovalAnswer, EventStatus, LeaseInfo } from './rows.js';

export interface EventQuery {
  status?: EventStatus;
  source?: string;
  limit?: number;
  /** Newest first (what a person reading the inbox wants) instead of oldest first. */
  newestFirst?: boolean;
  /** The next page: only ids past this one in the listing's order. */
  afterId?: number;
}

/** An approval as a person sees it: `answer` null while open (or expired and not yet recorded). */
export interface ApprovalRow {
  id: string;
  action: unknown;
  requestedAt: number;
  expiresAt: number;
  answer: ApprovalAnswer | 'expired' | null;
  answeredAt: number | null;
  /** When its reminder is (was) due; present only on an approval asked with one (ApprovalRequest.remindAt). */
  remindAt?: number;
  /** When the reminder fired, null while it has not. */
  remindedAt?: number | null;
}

export interface OutboxRow {
  id: number;
  body: string;
  urgent: boolean;
  createdAt: number;
  sentAt: number | null;
}

export interface OutboxView {
  /** Every held message, oldest first (bounded by the query's limit). */
  held: OutboxRow[];
  /** How many are held in all, whatever the limit (counted over held messages only, never the sent history). */
  heldCount: number;
  /** The latest sent messages, newest first. */
  sent: OutboxRow[];
  /** When `dispatch` may send next (R9's gap, urgent messages, a dispatch in flight); null with nothing held. */
  nextSendAt: number | null;
  /** Messages a channel did not take (rejected, uncertain, or no address for it), not yet redriven or dropped; newest first, bounded by the limit. */
  failed: OutboxFailure[];
}

/** One bucket of an inbox's history: events received, events finished (done or dead) and runs that finished them. */
export interface ActivityBucket {
  start: number;
  received: number;
  finished: number;
  runs: number;
}

/** What a person did to an inbox from the dashboard or the CLI, kept for the record. */
export interface OperatorAction {
  at: number;
  actor: string;
  action: string;
  target: string;
  result: string;
}

/** One row of the overview: an inbox at a glance. */
export interface InboxSummary {
  id: string;
  events: Record<EventStatus, number>;
  lease: LeaseInfo | null;
  /** The next occurrence of the earliest live timer, null with none. */
  nextTimerAt: number | null;
  outboxHeld: number;
  approvalsPending: number;
  /** Since when the inbox has had work no worker took (claimable events, due timers), null when none is due. */
  readySince: number | null;
  /**
   * Why this inbox could not be read for the overview (a corrupt or
   * unreadable file), null when it was: one broken inbox is one row saying
   * so, never a failed page. Its counts are then zero.
   */
  unreadable: string | null;
}

export interface InboxListQuery {
  /** Only ids that contain this text, in any case ("team" finds "Team-A"). */
  search?: string;
  /** The next page: ids after this one (the previous page's `next`). */
  after?: string;
  /** Default 50, at most 500. */
  limit?: number;
  /** Only inboxes that need a person: dead events, or work due longer than `stuckAfterMs` ago. */
  attention?: boolean;
  /** Default 60 s. */
  stuckAfterMs?: number;
}

export interface InboxList {
  /** By id. */
  inboxes: InboxSummary[];
  /** `after` for the next page; null on the last one. */
  next: string | null;
  /** Inboxes that match the query, over all pages. */
  total: number;
  /** Of every inbox (search and filter aside), how many need attention. */
  needAttention: number;
  /** The store's now (the database's clock on PostgreSQL), to show times left. */
  now: number;
}

/**
 * What a person reads about one inbox (the dashboard): a read model beside
 * the engine's verbs, each read at a cost that follows its page or window,
 * not the inbox's history.
 */
export interface InboxView {
  readonly id: string;
  /** Newest requested first. */
  approvals(query?: { limit?: number }): Promise<ApprovalRow[]>;
  /** Held messages, the latest sent ones, and when the next send may happen. */
  outbox(query?: { limit?: number }): Promise<OutboxView>;
  /** Events received and finished per bucket from `since` to now, oldest bucket first, empty buckets included. */
  activity(query: { since: number; bucketMs: number }): Promise<ActivityBucket[]>;
  /** Newest first. */
  actions(query?: { limit?: number }): Promise<OperatorAction[]>;
}
