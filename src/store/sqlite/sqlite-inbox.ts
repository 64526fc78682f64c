/**
 * The Inbox contract on one SQLite file. Each method validates its input,
 * then runs its rule (one module per rule) in one transaction. Reads of an
 * inbox that was never written return empty results without creating a file.
 */
import type {
  ActivityBucket,
  ApprovalAnswer,
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalRow,
  ClaimedEvent,
  DispatchOptions,
  EventQuery,
  EventRow,
  Inbox,
  InboxStats,
  NewEvent,
  OperatorAction,
  OutboxView,
  RunOutcome,
  SendFn,
  TimerRow,
  TimerSpec,
} from '../contract.js';
import { VigilError } from '../../errors.js';
import * as v from '../validate.js';
import * as d from '../validate-dashboard.js';
import { answerApproval, requestApproval } from './approvals.js';
import { claimBatch } from './claim.js';
import { releaseBatch, recordSent, reserveBatch } from './dispatch.js';
import { finishRun } from './finish.js';
import type { InboxDb } from './inbox-db.js';
import { acquireLease, releaseLease } from './lease.js';
import { emptyStats, toActivity } from '../rows.js';
import { activity, listApprovals, outboxView } from './dashboard.js';
import { expediteOutbox, listActions, recordAction } from './operator.js';
import { getEvent, getMemory, getSession, listEvents, redrive, stats } from './read.js';
import { listTimers, neverMatches, removeTimer, runScheduler, upsertTimer } from './timers.js';
import { nextCronTime } from '../schedule.js';

/** What an inbox needs from its store: a connection, opened (and created) on demand. */
export interface InboxFiles {
  readonly maxPayloadBytes: number;
  /** The open file, or null when `create` is false and the inbox was never written. */
  connection(inboxId: string, create: boolean): InboxDb | null;
  now(): number;
  /** Tells subscribers that work landed in an inbox. */
  notify(inboxId: string): void;
  /** Stores one event, sharing the transaction with others that arrive at the same time. */
  ingestGrouped(inboxId: string, event: v.CheckedEvent): Promise<boolean>;
  /** Stores events of one inbox in one transaction (R1 for each), telling subscribers. */
  storeEvents(inboxId: string, events: v.CheckedEvent[]): boolean[];
}

export class SqliteInbox implements Inbox {
  constructor(
    private readonly files: InboxFiles,
    readonly id: string,
  ) {}

  private writer(): InboxDb {
    return this.files.connection(this.id, true) as InboxDb;
  }

  private existing(): InboxDb | null {
    return this.files.connection(this.id, false);
  }

  async ingest(event: NewEvent): Promise<boolean> {
    const checked = v.validateEvent(event, this.files.maxPayloadBytes);
    return this.files.ingestGrouped(this.id, checked);
  }

  async ingestMany(events: readonly NewEvent[]): Promise<boolean[]> {
    const checked = v.validateEvents(events, this.files.maxPayloadBytes);
    if (checked.length === 0) return [];
    return this.files.storeEvents(this.id, checked);
  }

  async acquire(holder: string): Promise<number | null> {
    v.validateHolder(holder);
    const c = this.writer();
    return c.write((now) => acquireLease(c, holder, now), { durability: 'process' });
  }

  async release(holder: string, gen: number): Promise<boolean> {
    v.validateHolder(holder);
    v.validateGen(gen);
    const c = this.existing();
    return c === null ? false : c.write((now) => releaseLease(c, holder, gen, now), { durability: 'process' });
  }

  async claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]> {
    v.validateHolder(holder);
    v.validateGen(gen);
    const c = this.existing();
    return c === null ? [] : c.write((now) => claimBatch(c, holder, gen, now), { durability: 'process' });
  }

  async finish(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<boolean> {
    v.validateHolder(holder);
    v.validateGen(gen);
    const eventIds = v.validateEventIds(ids);
    const checked = v.validateOutcome(outcome, this.files.maxPayloadBytes);
    const c = this.existing();
    return c === null ? false : c.write((now) => finishRun(c, holder, gen, eventIds, checked, now));
  }

  async addTimer(timer: TimerSpec): Promise<void> {
    const checked = v.validateTimer(timer, this.files.maxPayloadBytes);
    // Refused before the file is created: a refused timer must not leave an empty inbox behind.
    // (upsertTimer checks again in the transaction, at the transaction's now.)
    if (checked.due === null && nextCronTime(checked.cron!, checked.tz, this.files.now()) === null) throw neverMatches(checked.id);
    const c = this.writer();
    c.write((now) => upsertTimer(c, checked, now));
    this.files.notify(this.id);
  }

  async removeTimer(id: string): Promise<boolean> {
    v.validateTimerId(id);
    const c = this.existing();
    return c === null ? false : c.write(() => removeTimer(c, id));
  }

  async timers(): Promise<TimerRow[]> {
    const c = this.existing();
    return c === null ? [] : c.read(() => listTimers(c));
  }

  async runScheduler(): Promise<number> {
    const c = this.existing();
    return c === null ? 0 : c.write((now) => runScheduler(c, now));
  }

  async requestApproval(request: ApprovalRequest): Promise<void> {
    const checked = v.validateApprovalRequest(request, this.files.maxPayloadBytes);
    const c = this.writer();
    c.write((now) => requestApproval(c, checked, now));
    this.files.notify(this.id);
  }

  async answerApproval(id: string, answer: ApprovalAnswer): Promise<ApprovalOutcome> {
    v.validateApprovalId(id);
    v.validateAnswer(answer);
    const c = this.existing();
    if (c === null) return 'unknown';
    const outcome = c.write((now) => answerApproval(c, id, answer, now));
    if (outcome !== 'unknown') this.files.notify(this.id);
    return outcome;
  }

  async dispatch(send: SendFn, options: DispatchOptions = {}): Promise<number> {
    if (typeof send !== 'function') throw new VigilError('invalid_argument', 'dispatch needs a send function');
    const atMostOnce = options.atMostOnce === true;
    const first = this.existing();
    if (first === null) return 0;
    const plan = first.write((now) => reserveBatch(first, now, atMostOnce));
    if (plan === null) return 0;
    if (atMostOnce) {
      await send(plan.body, plan.messages);
      return plan.messages.length;
    }
    // The file may have been closed by the LRU while we awaited: ask for it again.
    try {
      await send(plan.body, plan.messages);
    } catch (error) {
      const c = this.writer();
      c.write(() => releaseBatch(c, plan));
      throw error;
    }
    const c = this.writer();
    c.write((now) => recordSent(c, plan, now));
    return plan.messages.length;
  }

  async getSession(): Promise<unknown> {
    const c = this.existing();
    return c === null ? null : c.read(() => getSession(c));
  }

  async getMemory(): Promise<Record<string, unknown>> {
    const c = this.existing();
    return c === null ? {} : c.read(() => getMemory(c));
  }

  async getEvent(source: string, sourceId: string): Promise<EventRow | null> {
    const c = this.existing();
    return c === null ? null : c.read(() => getEvent(c, source, sourceId));
  }

  async events(query?: EventQuery): Promise<EventRow[]> {
    const checked = v.validateEventQuery(query);
    const c = this.existing();
    return c === null ? [] : c.read(() => listEvents(c, checked));
  }

  async redrive(eventId: number): Promise<boolean> {
    v.validateEventId(eventId);
    const c = this.existing();
    const redriven = c !== null && c.write(() => redrive(c, eventId));
    // The event is work again: wake the workers now rather than at their next poll.
    if (redriven) this.files.notify(this.id);
    return redriven;
  }

  async stats(): Promise<InboxStats> {
    const c = this.existing();
    if (c === null) return emptyStats();
    const now = this.files.now();
    return c.read(() => stats(c, now));
  }

  async approvals(query?: { limit?: number }): Promise<ApprovalRow[]> {
    const limit = d.validatePageQuery(query);
    const c = this.existing();
    return c === null ? [] : c.read(() => listApprovals(c, limit));
  }

  async outbox(query?: { limit?: number }): Promise<OutboxView> {
    const limit = d.validatePageQuery(query);
    const c = this.existing();
    if (c === null) return { held: [], heldCount: 0, sent: [], nextSendAt: null };
    const now = this.files.now();
    return c.read(() => outboxView(c, now, limit));
  }

  async activity(query: { since: number; bucketMs: number }): Promise<ActivityBucket[]> {
    const checked = d.validateActivityQuery(query);
    const now = this.files.now();
    const buckets = d.bucketCount(checked, now);
    const c = this.existing();
    if (c === null) return toActivity([], checked, buckets);
    return c.read(() => activity(c, checked, now, buckets));
  }

  async expediteOutbox(): Promise<number> {
    const c = this.existing();
    return c === null ? 0 : c.write(() => expediteOutbox(c));
  }

  async recordAction(action: Omit<OperatorAction, 'at'>): Promise<void> {
    const checked = d.validateOperatorAction(action);
    const c = this.writer();
    c.write((now) => recordAction(c, checked, now));
  }

  async actions(query?: { limit?: number }): Promise<OperatorAction[]> {
    const limit = d.validatePageQuery(query);
    const c = this.existing();
    return c === null ? [] : c.read(() => listActions(c, limit));
  }
}
