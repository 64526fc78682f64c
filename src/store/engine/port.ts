/**
 * The port: what a backend (SQLite, PostgreSQL) does for the engine, as
 * SQL. The engine (inbox.ts) validates every argument before a verb sees
 * it and decides each rule's plan; a backend stores and fetches. Each write
 * verb is one transaction (R10) on one inbox, serialised with the inbox's
 * other writers (SQLite: BEGIN IMMEDIATE on its file; PostgreSQL: a lock on
 * its row), and reads "now" once, after the lock.
 *
 * Where a rule must decide on rows read inside that transaction (which
 * timers are due, what an approval's answer is, what a dispatch may send),
 * the engine hands the verb a *planner*: a pure, synchronous function from
 * the rows and the transaction's now to what to write. So the rule lives
 * once, in the engine, and each backend only runs its SQL around it.
 *
 * The rules that are SQL by nature (R1's unique key, R2's lease, R3's fence,
 * R4's claim) are verbs of their own, and every verb returns what the
 * engine needs to tell subscribers and emit its events: no read is made
 * twice, and none just for a metric.
 */
import type {
  ActivityBucket,
  ApprovalOutcome,
  ApprovalRow,
  ClaimedEvent,
  EffectStart,
  EffectState,
  EventRow,
  InboxLimits,
  InboxRecord,
  InboxSettings,
  InboxList,
  LeaseInfo,
  StoredStats,
  UsageBucket,
  NextWake,
  OperatorAction,
  OutboxFailureReport,
  OutboxView,
  PruneResult,
  TimerRow,
  WakeKind,
  WakeListener,
} from '../contract.js';
import type { DeadEvent } from '../../events.js';
import type { ResolvedOptions } from '../options.js';
import type { IngestResult } from './quota.js';
import type { SpendJudge, SpendJudgement } from './budget.js';
import type { DispatchDecision, DispatchPlan, HeldRow, PacingState } from '../outbox-batch.js';
import type {
  CheckedAction,
  CheckedActivityQuery,
  CheckedApproval,
  CheckedEvent,
  CheckedEventQuery,
  CheckedInboxListQuery,
  CheckedIntent,
  CheckedOutcome,
  CheckedRecord,
  CheckedSettings,
  CheckedTimer,
} from './validate/index.js';

export interface StorePort {
  /** Which backend this is: the store's door (backends.ts) and its seam (seam.ts) load its modules by it. */
  readonly backend: 'sqlite' | 'postgres';
  readonly options: ResolvedOptions;
  /** An inbox's verbs; the id is valid (R11). Cheap: nothing is created until a write. */
  inbox(id: string): InboxPort;
  /** An inbox's dashboard reads; the id is valid. */
  view(id: string): ViewPort;
  inboxes(): Promise<string[]>;
  readyInboxes(limit: number): Promise<string[]>;
  dispatchableInboxes(limit: number): Promise<string[]>;
  listInboxes(query: CheckedInboxListQuery): Promise<InboxList>;
  nextWake(): Promise<NextWake>;
  /** A write that belongs to no inbox (contract.ts, Store.probeWrites); throws what it met. */
  probeWrites(): Promise<void>;
  /** Wake-up hints from this store object and (PostgreSQL) every other process on the same data. */
  subscribe(listener: WakeListener): Promise<() => Promise<void>>;
  /** Tells every subscriber (PostgreSQL: on every machine) that `kind` of work landed in an inbox. */
  notify(inboxId: string, kind: WakeKind): Promise<void>;
  /** Keeps `sessionId` as ended until `expiresAt`, durably; forgets ended ids past their expiry. */
  endSession(sessionId: string, expiresAt: number): Promise<void>;
  sessionEnded(sessionId: string): Promise<boolean>;

  /** Every record of one inbox, from one read snapshot (nothing for an inbox never written). */
  exportInbox(id: string): AsyncIterable<InboxRecord>;
  /** Removes every row of one inbox, its file or rows; inbox_busy under a live lease; false when there was nothing. */
  deleteInbox(id: string): Promise<boolean>;
  /** Writes the records as a new inbox, all or nothing; inbox_exists if it holds anything; how many were written. */
  importInbox(id: string, records: AsyncIterable<CheckedRecord>): Promise<number>;
  close(): Promise<void>;
}

export interface InboxPort {
  readonly id: string;
  /**
   * True when finishAndClaim can judge the spend (a CheckedFinish's `judge`)
   * inside its own transaction, after the finish and before the claim
   * (SQLite, whose transaction runs here); false when the engine judges in
   * a transaction of its own between the finish and the claim (PostgreSQL,
   * whose finish is one server function call).
   */
  readonly judgesInFinish: boolean;

  /**
   * R1: stores the events in order, each key once (the first wins), in one
   * transaction; true for each event stored, false for a duplicate.
   * `single`: one ingest call, which a backend may commit together with
   * others arriving at the same moment (SQLite's group commit), answering
   * each only after the shared commit. With `wake`, subscribers hear of the
   * inbox once something was stored.
   *
   * With `quota` (a single event from outside), the backend reads the
   * inbox's usage and its own `limits` setting inside the transaction and
   * asks quota.ts's rule whether the event, unless a duplicate, may be
   * stored; refused, it stores nothing and answers the refusal in its place.
   * Without one, each answer is a boolean.
   */
  insertEvents(events: CheckedEvent[], options: { single: boolean; wake: boolean; quota: InboxLimits | null }): Promise<IngestResult[]>;

  /** R2: take or renew the lease; null while another holder's is valid. */
  acquire(holder: string): Promise<Acquired | null>;
  /** R2: end this holder's lease in this generation now. */
  release(holder: string, gen: number): Promise<boolean>;
  /** R4, fenced by R3. */
  claim(holder: string, gen: number): Promise<Claim>;
  /**
   * R3, R5, R6: the run's outcome, fenced on holder and gen, all or nothing.
   * With `wake`, outbox subscribers hear of it once it is recorded.
   */
  finish(finish: CheckedFinish): Promise<boolean>;
  /**
   * acquire, then claim under that lease, in one transaction; when the
   * claim is empty and nothing of the generation runs, release too
   * (engine/lease.ts, endsRun). null while another holder's lease is valid.
   */
  acquireAndClaim(holder: string): Promise<{ acquired: Acquired; claim: Claim } | null>;
  /**
   * finish, then (once it is recorded) renew the lease and claim under it,
   * in one transaction; release as acquireAndClaim does. Refused: nothing
   * changed, nothing claimed.
   */
  finishAndClaim(finish: CheckedFinish): Promise<{ finished: boolean; claim: Claim; judged?: SpendJudgement | null }>;

  /** R7: creates or replaces a timer; `firstDue` gives the due time of a cron timer given none, at the transaction's now. */
  addTimer(timer: CheckedTimer, firstDue: (now: number) => number): Promise<void>;
  removeTimer(id: string): Promise<boolean>;
  /**
   * R7 (and R8's expiries): reads the due timers and the expired open
   * approvals, asks `plan`, and writes what it says, in one transaction.
   * An inbox that was never written fires nothing and is not created.
   */
  fireTimers(plan: PlanFiring): Promise<void>;

  /** R8: asking again for an id that exists changes nothing. */
  requestApproval(request: CheckedApproval): Promise<void>;
  /**
   * R8: reads the approval (unknown: 'unknown'), stores the event
   * `decide.event` gives (unless one is stored under its key already), then
   * records and returns the outcome `decide.standing` reads from the stored
   * one. One transaction.
   */
  answerApproval(id: string, decide: DecideAnswer): Promise<ApprovalOutcome>;

  /**
   * R9: unless a dispatch is in flight, reads the held messages, the pacing
   * and the settings, asks `plan`, keeps its `notBefore`, and reserves the
   * batch it picks for leaseTtlMs (or, `atMostOnce`, records it as sent),
   * with the pacing that batch counts against. One transaction.
   */
  reserve(plan: PlanDispatch, options: ReserveOptions): Promise<Reserved | null>;
  /**
   * R9: some channels are done with the reserved batch: `progress` replaces
   * what was recorded for the inbox's batch in flight. False, writing
   * nothing, when the inbox is gone (deleted during the send).
   */
  recordProgress(progress: StoredProgress): Promise<boolean>;
  /**
   * R9: the send failed: the batch is held again and its pacing given back
   * (if no later batch has counted since); its recorded progress stays.
   * False, creating nothing, when the inbox is gone.
   */
  unreserve(batch: DispatchPlan): Promise<boolean>;
  /**
   * R9: the send succeeded: the reserved batch is sent, its progress
   * cleared, and what some channel did not take (`failures`) is kept for a
   * redrive, in the same transaction. At most once the batch is recorded
   * already: only the failures are written. False, creating nothing, when
   * the inbox is gone (deleted during the send).
   */
  markSent(batch: DispatchPlan, failures: OutboxFailureReport[]): Promise<boolean>;
  /** Open failures (of `channel`, or all) become held copies for their channel alone; how many. */
  redriveOutbox(channel: string | null): Promise<number>;
  /** Deletes the open failures of `channel` (null: every channel); how many. */
  dropOutbox(channel: string | null): Promise<number>;

  /** R6: a dead event pending again with attempts 0. */
  redrive(eventId: number): Promise<boolean>;
  /** Every held message urgent (R9's "send now"); how many. */
  expediteOutbox(): Promise<number>;
  recordAction(action: CheckedAction): Promise<void>;

  /**
   * The ledger (engine/effects.ts): fenced on holder and gen (R3; null,
   * nothing written, when not held), reads the row under the key, and writes
   * what planStart says, in one durable transaction of its own.
   */
  startEffect(holder: string, gen: number, intent: CheckedIntent): Promise<EffectStart | null>;
  /** Reads the row and the lease, checks checkSettleable (not_unknown writes nothing), settles it. */
  settleEffect(key: string, state: 'confirmed' | 'failed'): Promise<void>;
  /** `started` rows (oldest first) or all rows (newest first), with the lease and now, for the engine to tell the unknown ones. */
  effects(which: 'unknown' | 'all', limit: number): Promise<StoredEffects>;

  /**
   * Retention: removes at most `limit` finished rows that the cutoffs
   * `cutoffs` gives at the transaction's now put past their retention, each
   * pruned event's key kept as a tombstone, in one transaction. Creates nothing.
   */
  prune(cutoffs: (now: number) => PruneCutoffs, limit: number): Promise<PruneResult>;

  /** The settings stored ({} for none). */
  settings(): Promise<InboxSettings>;
  /**
   * Reads the settings, asks `apply` for the new ones (it throws
   * invalid_settings to change nothing) and writes them, clearing a pacing
   * decision made under the old ones. Creates the inbox.
   */
  updateSettings(apply: (current: InboxSettings) => CheckedSettings): Promise<InboxSettings>;

  /**
   * The budget (engine/budget.ts): reads the settings, the stored pause and
   * the usage since `judge.periods`, asks `judge.decide`, writes the pause
   * and queues its notice (urgent), in one transaction. Null, creating
   * nothing, for an inbox never written.
   */
  judgeSpend(judge: SpendJudge): Promise<SpendJudgement | null>;
  /** The same judgement, written nowhere: for stats and a run's budget. */
  readSpend(judge: SpendJudge): Promise<SpendJudgement | null>;

  timers(): Promise<TimerRow[]>;
  getSession(): Promise<unknown>;
  getMemory(): Promise<Record<string, unknown>>;
  getEvent(source: string, sourceId: string): Promise<EventRow | null>;
  getApproval(id: string): Promise<ApprovalRow | null>;
  events(query: CheckedEventQuery): Promise<EventRow[]>;
  stats(): Promise<StoredStats>;
  /**
   * The model usage rows of runs finished in the window `window` gives at
   * the store's now, [from, to), summed per 15-minute slot of UTC (every
   * time zone's days begin on such a slot): the engine (usage.ts) sums the
   * slots into the inbox's local days and months. Creates nothing.
   */
  usage(window: (now: number) => UsageWindow): Promise<{ now: number; slots: UsageSlot[] }>;
}

export interface UsageWindow {
  from: number;
  to: number;
}

/** The usage rows of one 15-minute slot (`slot`: its first ms), summed as a bucket is. */
export type UsageSlot = Omit<UsageBucket, 'period'> & { slot: number };

/** The slots usage rows are summed in: 15 minutes, which every UTC offset is a multiple of. */
export const USAGE_SLOT_MS = 900_000;

export interface ViewPort {
  readonly id: string;
  approvals(limit: number): Promise<ApprovalRow[]>;
  outbox(limit: number): Promise<OutboxView>;
  /** `buckets(now)` says how many buckets the window has at the store's now (and refuses too many). */
  activity(query: CheckedActivityQuery, buckets: (now: number) => number): Promise<ActivityBucket[]>;
  actions(limit: number): Promise<OperatorAction[]>;
}

export interface Acquired {
  gen: number;
  /** The holder's own valid lease, extended in the same generation. */
  renewed: boolean;
  /** Events of an older generation were still running: their worker died or stalled. */
  takeover: boolean;
}

export interface Claim {
  events: ClaimedEvent[];
  /** Events this claim parked as dead (R4: too many attempts). */
  dead: DeadEvent[];
}

/** A run's finish as the engine hands it to a backend: whose lease and claim (R3), the checked outcome, and whether its messages wake the dispatchers. */
export interface CheckedFinish {
  holder: string;
  gen: number;
  ids: number[];
  outcome: CheckedOutcome;
  /** Outbox subscribers hear of it when it is recorded: it queued messages. */
  wake: boolean;
  /** The budget's judgement, made once the finish is recorded and before the claim (only where judgesInFinish). */
  judge?: SpendJudge | undefined;
}

export interface ReserveOptions {
  atMostOnce: boolean;
}

/** A timer as the scheduler reads it from its row. */
export interface DueTimer {
  id: string;
  due: number;
  every: number | null;
  cron: string | null;
  tz: string | null;
  missed: CheckedTimer['missed'];
  payloadJson: string;
  key: { source: string; sourceId: string } | null;
}

export interface ExpiredApproval {
  id: string;
  actionJson: string;
  expiresAt: number;
}

/** What one scheduler pass writes: the events, each timer's next due (null: done), the approvals now expired. */
export interface FiringPlan {
  events: CheckedEvent[];
  timers: { id: string; nextDue: number | null; lastSkipped: number }[];
  expiredApprovals: string[];
  /** Approvals whose reminder event this pass stores: marked reminded in the same transaction, so it fires once. */
  remindedApprovals: string[];
}

/** An open approval whose reminder is due (remind_at <= now < expires_at, not reminded yet). */
export interface DueReminder {
  id: string;
  actionJson: string;
  expiresAt: number;
  remindAt: number;
}

export type PlanFiring = (due: DueTimer[], expired: ExpiredApproval[], now: number, reminders?: DueReminder[]) => FiringPlan;

export interface DecideAnswer {
  /** The event to store under ('approval', id), from the approval's row and the transaction's now. */
  event(approval: { actionJson: string; expiresAt: number }, now: number): CheckedEvent;
  /** The outcome the stored event says ('unknown' if it says none). */
  standing(storedPayloadJson: string): ApprovalOutcome;
}

export interface DispatchInput {
  held: HeldRow[];
  pacing: PacingState;
  settings: InboxSettings;
  now: number;
}

export type PlanDispatch = (input: DispatchInput) => DispatchDecision;

export interface Reserved {
  batch: DispatchPlan;
  /** Messages held before this batch (it included). */
  held: number;
  /** The settings the plan was made with (the send needs their contacts). */
  settings: InboxSettings;
  /** The progress recorded for the inbox's batch in flight (maybe another batch than this one), or null. */
  progress: StoredProgress | null;
}

/** A batch's progress as a backend stores it: which batch (the engine's name for it) and the engine's JSON. */
export interface StoredProgress {
  batch: string;
  json: string;
}

/** Per kind, the time at or before which a finished row is past its retention; null keeps that kind. */
export interface PruneCutoffs {
  doneEvents: number | null;
  deadEvents: number | null;
  sentMessages: number | null;
  answeredApprovals: number | null;
  actions: number | null;
  settledEffects: number | null;
  /** Model usage rows, by when their run finished. */
  usage: number | null;
}

/** A ledger row as a backend reads it (contract/effects.ts). */
export interface StoredEffect {
  key: string;
  tool: string;
  inputJson: string;
  inputHash: string;
  state: EffectState;
  gen: number | null;
  intendedAt: number;
  startedAt: number | null;
  settledAt: number | null;
}

export interface StoredEffects {
  rows: StoredEffect[];
  lease: LeaseInfo | null;
  now: number;
}
