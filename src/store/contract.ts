/**
 * The store contract: what every backend (SQLite, PostgreSQL) promises.
 * Each method names the SPEC rule it implements; the conformance suite in
 * test/conformance/ holds every backend to exactly these words.
 */
import type { Clock } from '../clock.js';

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

export type OutboxMessage = string | { body: string; urgent?: boolean };

export interface RunOutcome {
  messages?: OutboxMessage[];
  error?: string;
  /**
   * With `error`: the events go dead at once (R6) instead of waiting out
   * their attempts. For failures no retry can fix: a request the model API
   * refuses as malformed, an event a screening step rejects.
   */
  dead?: boolean;
  /**
   * The inbox's session (the agent's conversation and its pending tool
   * calls), saved in this finish's transaction: a JSON value, or null to
   * clear it; left as it is when absent. Only with a successful outcome.
   */
  session?: unknown;
  /** Memory changes, saved in this finish's transaction. Only with a successful outcome. */
  memory?: MemoryChanges;
  /**
   * Approvals asked with this outcome (R8 as for requestApproval: an id that
   * exists keeps its deadline), in this finish's transaction: the question a
   * run sends and the approval it asks about exist together, or neither
   * does. Only with a successful outcome.
   */
  approvals?: ApprovalRequest[];
}

/** Keys to set (to a JSON value) and keys to delete. */
export interface MemoryChanges {
  set?: Record<string, unknown>;
  delete?: string[];
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

export interface HeldMessage {
  id: number;
  body: string;
  urgent: boolean;
}

/** Delivers one combined body; throwing means "not delivered". */
export type SendFn = (body: string, messages: HeldMessage[]) => void | Promise<void>;

export interface DispatchOptions {
  /** Record first, send second: a crash loses the message instead of repeating it. */
  atMostOnce?: boolean;
}

export interface LeaseInfo {
  holder: string;
  gen: number;
  until: number;
}

export interface InboxStats {
  events: Record<EventStatus, number>;
  outbox: { held: number; sent: number };
  timers: number;
  approvalsPending: number;
  lease: LeaseInfo | null;
}

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

export interface Inbox {
  readonly id: string;

  /** R1: store `(source, sourceId)` once; `false` for a duplicate. */
  ingest(event: NewEvent): Promise<boolean>;
  /** R1 for many events in one transaction; one boolean per event, in order. */
  ingestMany(events: readonly NewEvent[]): Promise<boolean[]>;

  /** R2: take or renew the lease; the generation, or `null` while another holds it. */
  acquire(holder: string): Promise<number | null>;
  /** R2: end a lease early so the next `acquire` takes over at once. */
  release(holder: string, gen: number): Promise<boolean>;

  /** R4 (fenced by R3): claim the next batch of events for one run. */
  claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]>;
  /** R3, R5: record a run's outcome and queue its messages, fenced on holder and gen. */
  finish(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<boolean>;

  /** R7: create or replace a timer by id. */
  addTimer(timer: TimerSpec): Promise<void>;
  removeTimer(id: string): Promise<boolean>;
  timers(): Promise<TimerRow[]>;
  /** R7: turn due timers (and expired approvals, R8) into events; returns how many were due. */
  runScheduler(): Promise<number>;

  /** R8: ask once; the expiry comes back as an event under ('approval', id). */
  requestApproval(request: ApprovalRequest): Promise<void>;
  /** R8: store the answer unless the deadline passed; returns the outcome that stands. */
  answerApproval(id: string, answer: ApprovalAnswer): Promise<ApprovalOutcome>;

  /** R9: send held messages as one body, paced by `outboxGapMs`; returns how many were sent. */
  dispatch(send: SendFn, options?: DispatchOptions): Promise<number>;

  /** The session the last successful finish saved, or null. */
  getSession(): Promise<unknown>;
  /** Every memory entry, by key (bounded: see MEMORY_LIMITS). */
  getMemory(): Promise<Record<string, unknown>>;

  getEvent(source: string, sourceId: string): Promise<EventRow | null>;
  /** Oldest first. */
  events(query?: EventQuery): Promise<EventRow[]>;
  /** R6: make a dead event pending again with attempts 0. */
  redrive(eventId: number): Promise<boolean>;
  stats(): Promise<InboxStats>;

  /** Newest requested first. */
  approvals(query?: { limit?: number }): Promise<ApprovalRow[]>;
  /** Held messages, the latest sent ones, and when the next send may happen. */
  outbox(query?: { limit?: number }): Promise<OutboxView>;
  /** Events received and finished per bucket from `since` to now, oldest bucket first, empty buckets included. */
  activity(query: { since: number; bucketMs: number }): Promise<ActivityBucket[]>;
  /** The operator's "send now": every held message skips the gap once (R9 as urgent); how many. */
  expediteOutbox(): Promise<number>;
  /** Keeps what a person did, with the store's time. */
  recordAction(action: Omit<OperatorAction, 'at'>): Promise<void>;
  /** Newest first. */
  actions(query?: { limit?: number }): Promise<OperatorAction[]>;
}

export interface Store {
  /**
   * How long a lease lasts, as the store was opened with (R2): a worker pool
   * renews well within it and a dispatcher's sends end well within it, so
   * both read it from here rather than being told it a second time.
   */
  readonly leaseTtlMs: number;
  /** R11: validates the id; cheap, creates nothing until the first write. */
  inbox(id: string): Inbox;
  /** Ids of the inboxes that exist. */
  inboxes(): Promise<string[]>;
  /**
   * Inboxes with claimable events or due timers, most overdue first, at a
   * cost that follows the ready work rather than the number of inboxes.
   */
  readyInboxes(options?: { limit?: number }): Promise<string[]>;
  /**
   * The dashboard's overview: a page of inboxes at a glance, at a cost that
   * follows the page, not the number of inboxes.
   */
  listInboxes(query?: InboxListQuery): Promise<InboxList>;
  /** Inboxes whose outbox has a message that `dispatch` would send now. */
  dispatchableInboxes(options?: { limit?: number }): Promise<string[]>;
  /**
   * When the earliest inbox next needs a worker (`wakeAt`) or a dispatcher
   * (`sendAt`), null for never, with the store's own `now` to measure the
   * wait against (on PostgreSQL the database's clock). What a service arms
   * its one timer from; the rows stay the truth.
   */
  nextWake(): Promise<NextWake>;
  /**
   * Wake-up hints: `listener(inboxId)` is called soon after an event, timer
   * or approval lands in an inbox (PostgreSQL: LISTEN/NOTIFY from any
   * machine; SQLite: writes through this store object). A hint only, never
   * the truth: keep polling `readyInboxes` as well. Resolves to a function
   * that stops listening.
   */
  subscribe(listener: (inboxId: string) => void): Promise<() => Promise<void>>;
  /**
   * A dashboard sign-out: remembers `sessionId` as ended until `expiresAt`
   * (when its cookie stops working anyway), for every process sharing this
   * store, durably (a restart does not bring the session back). Ids past
   * their expiry may be forgotten. Ending a session twice changes nothing.
   */
  endSession(sessionId: string, expiresAt: number): Promise<void>;
  /** Whether `sessionId` was ended by `endSession` (and not yet forgotten after its expiry). */
  sessionEnded(sessionId: string): Promise<boolean>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface NextWake {
  wakeAt: number | null;
  sendAt: number | null;
  now: number;
}

export interface RetryBackoff {
  baseMs: number;
  maxMs: number;
}

export interface StoreOptions {
  clock?: Clock | 'database';
  leaseTtlMs?: number;
  maxAttempts?: number;
  outboxGapMs?: number;
  retryBackoff?: Partial<RetryBackoff>;
  batchLimit?: number;
  maxPayloadBytes?: number;
  /** SQLite: how many inbox files are kept open at once (an LRU). */
  maxOpenInboxes?: number;
  /** SQLite: how long a write waits for another process's lock. */
  busyTimeoutMs?: number;
  /** SQLite: `full` (default, as the reference) or `normal`. */
  synchronous?: 'full' | 'normal';
  /** PostgreSQL: the schema that holds Vigil's tables (default `vigil`; also `?schema=` in the URL). */
  schema?: string;
}
