/**
 * The store contract: what every backend (SQLite, PostgreSQL) promises.
 * Each method names the SPEC rule it implements; the conformance suite in
 * test/conformance/ holds every backend to exactly these words.
 *
 * One engine keeps it (store/engine/): it validates, decides each rule's
 * plan, tells subscribers and emits the domain events; a backend only runs
 * the SQL verbs of store/engine/port.ts.
 *
 * This file is the contract's entry and its engine verbs (Inbox, Store);
 * its parts stand beside it, by concept, and are exported from here:
 * contract/rows.ts (the events, timers, approvals and lease the verbs take
 * and give), contract/outbox.ts (what a send gets and reports),
 * contract/settings.ts (an inbox's own terms), contract/reads.ts (what a
 * person reads about inboxes), contract/data-lifecycle.ts (retention,
 * export and import records), contract/decisions.ts (a run's permission
 * decisions) and contract/usage.ts (what its model calls used). No part imports this file: they sit below it, with the event
 * map (../events.ts), which names some of them.
 *
 * Ids and keys, the same on both stores (R1, R11):
 * - An inbox id matches `[A-Za-z0-9][A-Za-z0-9._-]{0,127}` (never a path).
 *   Ids are compared exactly, but two ids that differ only in case never
 *   both exist in one store: the second is refused with `invalid_inbox_id`.
 *   (A file system that ignores case would otherwise give two users one
 *   SQLite file; PostgreSQL refuses the same, so a store moves between
 *   backends unchanged.)
 * - Keys (`source`, `sourceId`, timer and approval ids, holders, memory
 *   keys) are 1 to 256 UTF-16 code units (timer ids 200, memory keys 200),
 *   compared exactly, case included, byte for byte.
 * - No text the store keeps as text may hold U+0000 (NUL) or a lone UTF-16
 *   surrogate: keys, message bodies, errors, operator actions. Such input is
 *   refused with the call's `invalid_*` code before anything is written.
 *   Payloads, sessions, memory values and approval actions are JSON, which
 *   escapes both, so they round-trip unchanged. What JSON would store as
 *   something else (NaN, a function, a Map, a cycle), or a value nested
 *   deeper than 512 levels of arrays and objects, is refused the same way.
 */
import type { Clock } from '../clock.js';
import type { RuntimeEvents } from '../events.js';
import type { InboxRecord, PruneResult, RetentionOptions } from './contract/data-lifecycle.js';
import type { DispatchOptions, SendFn } from './contract/outbox.js';
import type { ApprovalRow, EventQuery, InboxList, InboxListQuery, InboxView, OperatorAction } from './contract/reads.js';
import type { ApprovalAnswer, ApprovalOutcome, ApprovalRequest, ClaimedEvent, EventRow, EventStatus, LeaseInfo, NewEvent, TimerRow, TimerSpec } from './contract/rows.js';
import type { InboxBudget, InboxSettings } from './contract/settings.js';
import type { IngestOptions, InboxUsage } from './contract/limits.js';
import type { ModelUsageNow, Usage, UsageBucket, UsageQuery } from './contract/usage.js';
import type { EffectIntent, EffectQuery, EffectRow, EffectSettlement, EffectStart } from './contract/effects.js';
import type { BudgetState, RunBudget } from './contract/budget.js';

// The contract's other parts, by concept: its rows, the outbox's sends, an inbox's settings, what is read about inboxes, their data's life, and a run's decisions.
export type * from './contract/rows.js';
export type * from './contract/outbox.js';
export type * from './contract/settings.js';
export type * from './contract/reads.js';
export type * from './contract/data-lifecycle.js';
export type * from './contract/decisions.js';
export type * from './contract/usage.js';
export type * from './contract/limits.js';
export type * from './contract/effects.js';
export type * from './contract/budget.js';

/** What `acquireAndClaim` gives: the lease's generation and the batch claimed under it. */
export interface ClaimedRun {
  gen: number;
  /** Empty when there was nothing to claim: the lease is released again, unless this generation still has events running. */
  events: ClaimedEvent[];
}

/** What `finishAndClaim` gives: whether the finish was recorded, and the next batch claimed under the same lease. */
export interface NextBatch {
  /** false: refused (R3), nothing changed, nothing claimed. */
  finished: boolean;
  /** Empty when nothing was left to claim: the lease is released, unless this generation still has events running. */
  events: ClaimedEvent[];
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
  /**
   * What the run's model calls used, recorded in this finish's transaction
   * with any outcome, an error's too (a failed run's tokens were still paid
   * for): a finish refused (R3) records nothing, so a run that lost its
   * lease never counts twice. Nothing is recorded for an empty usage.
   */
  usage?: Usage;
  /**
   * The ledger (contract/effects.ts): the side-effect calls this run started,
   * settled `confirmed` or `failed` in this finish's transaction, with an
   * error too. Only a call this generation started is settled.
   */
  effects?: EffectSettlement[];
  /**
   * The ledger: side-effect calls this run asked a person about, recorded
   * `intended` under the key their approved call will run with, in this
   * finish's transaction with the approvals (a key already in the ledger
   * is left as it is). Only with a successful outcome.
   */
  intents?: EffectIntent[];
}

/** Keys to set (to a JSON value) and keys to delete. */
export interface MemoryChanges {
  set?: Record<string, unknown>;
  delete?: string[];
}

export interface InboxStats {
  events: Record<EventStatus, number>;
  /**
   * undeliverable and rejected: messages a channel did not take, until
   * redriven (counted per channel); `rejected` counts the uncertain ones too
   * (at most once, a send that may not have landed): both wait for an operator.
   */
  outbox: { held: number; sent: number; undeliverable: number; rejected: number };
  timers: number;
  approvalsPending: number;
  lease: LeaseInfo | null;
  /** What the inbox holds against its quotas (contract/limits.ts), and its model usage today and this month (contract/usage.ts). */
  usage: InboxUsage & ModelUsageNow;
  /** Paused for spend, and what is left (contract/budget.ts); null when no budget applies. Always given by a store. */
  budget?: BudgetState | null;
}

/** InboxStats as a backend reads it: all but the model usage, which the engine adds (engine/usage.ts). */
export type StoredStats = Omit<InboxStats, 'usage'> & { usage: InboxUsage };

export interface Inbox {
  readonly id: string;

  /**
   * R1: store `(source, sourceId)` once; `false` for a duplicate. With
   * `quota`, a new event that would take the inbox past it is refused
   * (QuotaExceededError: inbox_full or rate_limited), nothing stored.
   */
  ingest(event: NewEvent, options?: IngestOptions): Promise<boolean>;
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

  /**
   * R2 then R4 in one transaction: `acquire`, then `claimBatch` under that
   * lease; `null` while another holder's lease is valid. When the claim
   * takes nothing and no event of this generation is running, the lease is
   * released in the same transaction, as `release` would: a turn at an
   * inbox with nothing to do leaves nothing held. One call where a run's
   * start took three (acquire, claim, and release when empty).
   */
  acquireAndClaim(holder: string): Promise<ClaimedRun | null>;
  /**
   * R3, R5 then R4 in one transaction: `finish`, and once it is recorded,
   * the lease renewed (same generation) and the next batch claimed under
   * it. When nothing is left to claim and no event of this generation is
   * still running, the lease is released in the same transaction. Refused
   * (R3): `{ finished: false, events: [] }`, nothing changed. For the last
   * finish of the batch in hand; one call where finish, renew, claim and
   * the last release took four.
   */
  finishAndClaim(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<NextBatch>;

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
  /** One approval as stored, its exact action and its reminder included, or null: what a link page shows. */
  getApproval(id: string): Promise<ApprovalRow | null>;
  /** Oldest first. */
  events(query?: EventQuery): Promise<EventRow[]>;
  /** R6: make a dead event pending again with attempts 0. */
  redrive(eventId: number): Promise<boolean>;
  stats(): Promise<InboxStats>;
  /** What a run may spend now (contract/budget.ts); null when no budget applies. One read: agents that cap their runs ask at a run's start. */
  runBudget(): Promise<RunBudget | null>;
  /**
   * The model usage recorded by the runs finished in [from, to), summed per
   * day or month of the inbox's `timeZone` setting, oldest first, periods
   * with no usage left out. A bad query is `invalid_argument` naming the field.
   */
  usage(query: UsageQuery): Promise<UsageBucket[]>;

  /** The operator's "send now": every held message skips the gap once (R9 as urgent); how many. */
  expediteOutbox(): Promise<number>;
  /**
   * Messages a channel did not take (OutboxFailure), of one channel or of
   * all, are held again for that channel alone (once a contact is set, a
   * revoked token replaced): how many.
   */
  redriveOutbox(options?: { channel?: string }): Promise<number>;
  /**
   * Messages a channel did not take, of one channel or of all, are dropped:
   * never sent to that channel, no longer listed or counted (the operator's
   * answer to an uncertain send that did land, or a message no longer
   * wanted): how many.
   */
  dropOutbox(options?: { channel?: string }): Promise<number>;
  /**
   * The ledger of side effects (contract/effects.ts): records a call as
   * `started` before its tool runs, in a write of its own, fenced on the
   * run's lease (R3: null, nothing written, when the run lost it). A key
   * already started (unknown) or confirmed is not started again.
   */
  startEffect(holder: string, gen: number, intent: EffectIntent): Promise<EffectStart | null>;
  /** The ledger's rows: the unknown calls (the default), or all, newest first. */
  effects(query?: EffectQuery): Promise<EffectRow[]>;
  /**
   * Settles an unknown call at once, as whoever checked it found it
   * (`confirmed`: it happened; `failed`: it did not). A key that is not
   * unknown is VigilError('not_unknown'), and nothing changes.
   */
  settleEffect(key: string, state: 'confirmed' | 'failed'): Promise<void>;
  /** Keeps what a person did, with the store's time. */
  recordAction(action: Omit<OperatorAction, 'at'>): Promise<void>;

  /** This inbox's settings ({} when it has none). */
  settings(): Promise<InboxSettings>;
  /**
   * Changes them with a JSON merge patch (RFC 7396: a `null` removes a key,
   * an object merges into the one there) and returns the settings after the
   * change. Settings that would not be valid are `invalid_settings`, naming
   * the field, and nothing changes.
   */
  updateSettings(patch: unknown): Promise<InboxSettings>;
}

export interface Store {
  /**
   * How long a lease lasts, as the store was opened with (R2): a worker pool
   * renews well within it and a dispatcher's sends end well within it, so
   * both read it from here rather than being told it a second time.
   */
  readonly leaseTtlMs: number;
  /**
   * The engine's and the runtime's events: the store emits what it did
   * (event:ingested, lease:acquired, events:dead, …) for the calls made
   * through this object; a worker pool and dispatcher on it emit theirs here
   * too unless given another emitter.
   */
  readonly events: RuntimeEvents;
  /** R11: validates the id; cheap, creates nothing until the first write. */
  inbox(id: string): Inbox;
  /** The dashboard's reads of one inbox (R11 as for inbox()). */
  view(id: string): InboxView;
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
   * A write that belongs to no inbox, asking whether the store as a whole
   * takes writes: what a health check asks after an inbox's write failed,
   * to tell that inbox's trouble (a corrupt file) from the store's (a full
   * disk, a read-only directory, a database that refuses). SQLite writes,
   * syncs and removes a small file in its directory; PostgreSQL runs a
   * write statement (forgetting ended sessions past their expiry). Throws
   * what the write met (`store_unavailable` for the disk or the server).
   */
  probeWrites(): Promise<void>;
  /**
   * Wake-up hints: `listener(inboxId, 'work')` soon after an event, timer
   * or approval lands in an inbox (what a worker pool waits for), and
   * `listener(inboxId, 'outbox')` after a run queues messages or an operator
   * expedites them (what a dispatcher waits for). PostgreSQL: LISTEN/NOTIFY,
   * from any machine; SQLite: writes through this store object and the
   * ready index's rebuild. A hint only, never the truth: keep polling
   * `readyInboxes` as well. Resolves to a function that stops listening.
   */
  subscribe(listener: WakeListener): Promise<() => Promise<void>>;
  /**
   * A dashboard sign-out: remembers `sessionId` as ended until `expiresAt`
   * (when its cookie stops working anyway), for every process sharing this
   * store, durably (a restart does not bring the session back). Ids past
   * their expiry may be forgotten. Ending a session twice changes nothing.
   */
  endSession(sessionId: string, expiresAt: number): Promise<void>;
  /** Whether `sessionId` was ended by `endSession` (and not yet forgotten after its expiry). */
  sessionEnded(sessionId: string): Promise<boolean>;
  /**
   * Removes what is past its retention (StoreOptions.retention), at most
   * `limit` rows (default 1,000) in short transactions, one inbox at a time,
   * resuming where the last call stopped: a service calls it in the
   * background and no ingest waits on it for long. (On SQLite each batch
   * takes its turn among the inbox file's writes; on PostgreSQL it runs
   * beside them, and only a redelivery of a key it is moving waits for it.)
   */
  prune(options?: { limit?: number }): Promise<PruneResult>;
  /** Every record of one inbox (InboxRecord), from one consistent snapshot. */
  exportInbox(id: string): AsyncIterable<InboxRecord>;
  /**
   * Removes everything of one inbox, tombstones included: afterwards it is
   * not listed and an old key ingests as new. Refused with `inbox_busy`
   * while a live lease is held. False when there was nothing to remove.
   */
  deleteInbox(id: string): Promise<boolean>;
  /**
   * Recreates an inbox from exported records, exactly (keys, timers,
   * statuses, times), in one transaction. Refused with `inbox_exists` if
   * the inbox holds anything; bad records are `invalid_argument` naming
   * the record, and nothing is written.
   */
  importInbox(id: string, records: Iterable<InboxRecord> | AsyncIterable<InboxRecord>): Promise<{ records: number }>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** What a hint announces: work for a worker pool, or messages for a dispatcher. */
export type WakeKind = 'work' | 'outbox';

export type WakeListener = (inboxId: string, kind: WakeKind) => void;

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
  /** Where the store emits its domain events (Store.events); a new emitter if absent. */
  events?: RuntimeEvents;
  /**
   * Each number below has a maximum (BOUNDS, README "Bounds on numbers"),
   * past which opening the store is `invalid_options` naming it: a
   * duration Node waits out (leaseTtlMs, busyTimeoutMs) at most
   * BOUNDS.maxTimerDelayMs, one kept in rows (outboxGapMs, retryBackoff,
   * retention) BOUNDS.maxDurationMs, a count BOUNDS.maxCount, a size
   * BOUNDS.maxBytes.
   */
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
  /**
   * SQLite: commit ingests on a writer thread of this process (default
   * false; `vigil serve` turns it on), so that HTTP parsing and the
   * inbox files' commits use two cores. Each ingest still answers after
   * its own durable commit. The thread reads the clock itself, so it takes
   * the system clock or a createFakeClock() clock; with any other clock
   * function ingests commit on the calling thread, as without it.
   */
  writerThread?: boolean;
  /** PostgreSQL: the schema that holds Vigil's tables (default `vigil`; also `?schema=` in the URL). */
  schema?: string;
  /** How long finished rows are kept before `prune` removes them; the default keeps everything. */
  retention?: RetentionOptions;
  /** The budget of every inbox (`vigil serve`'s config `budget`); each field of an inbox's own `budget` setting overrides it. */
  budget?: InboxBudget;
}
