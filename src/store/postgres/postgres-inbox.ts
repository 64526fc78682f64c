/**
 * The Inbox contract on PostgreSQL. Each method validates its input, then
 * runs its rule (one module per rule) in one transaction on the inbox's
 * locked row: the hot ones (ingest, acquire, release, claimBatch, finish) as
 * one call of a server-side function (call.ts), the others as a transaction
 * of a few statements (inbox-tx.ts). Reads and writes of an inbox that was
 * never written return empty results without creating it, as on SQLite.
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
  OutboxRow,
  OutboxView,
  RunOutcome,
  SendFn,
  TimerRow,
  TimerSpec,
} from '../contract.js';
import { VigilError } from '../../errors.js';
import * as v from '../validate.js';
import * as d from '../validate-dashboard.js';
import type { CheckedEvent } from '../validate.js';
import { answerApproval, requestApproval } from './approvals.js';
import { claimBatch } from './claim.js';
import { recordSent, releaseBatch, reserveBatch } from './dispatch.js';
import { finishRun } from './finish.js';
import type { CallTarget } from './call.js';
import type { InboxTx } from './inbox-tx.js';
import { ingestEvents } from './ingest.js';
import { acquireLease, releaseLease } from './lease.js';
import {
  toActivity,
  toApprovalRow,
  toEventRow,
  toOperatorAction,
  toOutboxRow,
  toTimerRow,
  type ActionRecord,
  type ActivityRecord,
  type ApprovalRecord,
  type EventRecord,
  type ListedTimerRecord,
  type OutboxRecord,
} from '../rows.js';
import { ACTIVITY, HELD_COUNT, LIST_APPROVALS, NEXT_SEND_AT, OUTBOX_VIEW, STORE_NOW } from './dashboard.js';
import { expediteOutbox, LIST_ACTIONS, recordAction } from './operator.js';
import { COUNT_SOURCE, GET_EVENT, listEventsSql, redrive, SORT_AT_MOST, STATS, toStats, type StatsRow } from './read.js';
import { LIST_TIMERS, removeTimer, runScheduler, upsertTimer } from './timers.js';

/** What an inbox needs from its store. */
export interface InboxBackend extends CallTarget {
  readonly maxPayloadBytes: number;
  /** One statement on a pooled connection: its own transaction, one snapshot. */
  query<T extends object>(sql: string, params: unknown[]): Promise<T[]>;
  /** The same, planned with index scans only (no sequential or bitmap heap scan). */
  queryByIndex<T extends object>(sql: string, params: unknown[]): Promise<T[]>;
  /** One transaction on the inbox's locked row; `absent` if it was never written and `create` is false. */
  transaction<T>(inboxId: string, create: boolean, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'>;
}

export class PostgresInbox implements Inbox {
  constructor(
    private readonly db: InboxBackend,
    readonly id: string,
  ) {}

  private async write<T>(fn: (tx: InboxTx) => Promise<T>): Promise<T> {
    const result = await this.db.transaction(this.id, true, fn);
    if (result === 'absent') throw new Error('unreachable: a creating transaction found no inbox row');
    return result.value;
  }

  private async writeExisting<T>(fallback: T, fn: (tx: InboxTx) => Promise<T>): Promise<T> {
    const result = await this.db.transaction(this.id, false, fn);
    return result === 'absent' ? fallback : result.value;
  }

  async ingest(event: NewEvent): Promise<boolean> {
    const checked = withoutNul(v.validateEvent(event, this.db.maxPayloadBytes));
    const [stored] = await ingestEvents(this.db, this.id, [checked]);
    return stored === true;
  }

  async ingestMany(events: readonly NewEvent[]): Promise<boolean[]> {
    const checked = v.validateEvents(events, this.db.maxPayloadBytes).map(withoutNul);
    if (checked.length === 0) return [];
    return ingestEvents(this.db, this.id, checked);
  }

  async acquire(holder: string): Promise<number | null> {
    v.validateHolder(holder);
    return acquireLease(this.db, this.id, holder);
  }

  async release(holder: string, gen: number): Promise<boolean> {
    v.validateHolder(holder);
    v.validateGen(gen);
    return releaseLease(this.db, this.id, holder, gen);
  }

  async claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]> {
    v.validateHolder(holder);
    v.validateGen(gen);
    return claimBatch(this.db, this.id, holder, gen);
  }

  async finish(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<boolean> {
    v.validateHolder(holder);
    v.validateGen(gen);
    const eventIds = v.validateEventIds(ids);
    const checked = v.validateOutcome(outcome, this.db.maxPayloadBytes);
    return finishRun(this.db, this.id, holder, gen, eventIds, checked);
  }

  async addTimer(timer: TimerSpec): Promise<void> {
    const checked = v.validateTimer(timer, this.db.maxPayloadBytes);
    await this.write(async (tx) => {
      await upsertTimer(tx, checked);
      tx.wakeSubscribers = true;
    });
  }

  async removeTimer(id: string): Promise<boolean> {
    v.validateTimerId(id);
    return this.writeExisting(false, (tx) => removeTimer(tx, id));
  }

  async timers(): Promise<TimerRow[]> {
    return (await this.db.query<ListedTimerRecord>(LIST_TIMERS, [this.id])).map(toTimerRow);
  }

  async runScheduler(): Promise<number> {
    return this.writeExisting(0, (tx) => runScheduler(tx));
  }

  async requestApproval(request: ApprovalRequest): Promise<void> {
    const checked = v.validateApprovalRequest(request, this.db.maxPayloadBytes);
    await this.write(async (tx) => {
      await requestApproval(tx, checked);
      tx.wakeSubscribers = true;
    });
  }

  async answerApproval(id: string, answer: ApprovalAnswer): Promise<ApprovalOutcome> {
    v.validateApprovalId(id);
    v.validateAnswer(answer);
    return this.writeExisting<ApprovalOutcome>('unknown', async (tx) => {
      const outcome = await answerApproval(tx, id, answer);
      tx.wakeSubscribers = outcome !== 'unknown';
      return outcome;
    });
  }

  async dispatch(send: SendFn, options: DispatchOptions = {}): Promise<number> {
    if (typeof send !== 'function') throw new VigilError('invalid_argument', 'dispatch needs a send function');
    const atMostOnce = options.atMostOnce === true;
    const plan = await this.writeExisting(null, (tx) => reserveBatch(tx, atMostOnce));
    if (plan === null) return 0;
    if (atMostOnce) {
      await send(plan.body, plan.messages);
      return plan.messages.length;
    }
    try {
      await send(plan.body, plan.messages);
    } catch (error) {
      await this.write((tx) => releaseBatch(tx, plan));
      throw error;
    }
    await this.write((tx) => recordSent(tx, plan));
    return plan.messages.length;
  }

  async getSession(): Promise<unknown> {
    const [row] = await this.db.query<{ state: string }>('SELECT state FROM sessions WHERE inbox_id = $1', [this.id]);
    return row === undefined ? null : (JSON.parse(row.state) as unknown);
  }

  async getMemory(): Promise<Record<string, unknown>> {
    const rows = await this.db.query<{ key: string; value: string }>('SELECT key, value FROM memory WHERE inbox_id = $1 ORDER BY key', [this.id]);
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
  }

  async getEvent(source: string, sourceId: string): Promise<EventRow | null> {
    const [row] = await this.db.query<EventRecord>(GET_EVENT, [this.id, source, sourceId]);
    return row === undefined ? null : toEventRow(row);
  }

  async events(query?: EventQuery): Promise<EventRow[]> {
    const checked = v.validateEventQuery(query);
    // No stored key holds U+0000 (withoutNul): nothing can match, and text cannot carry it.
    if (checked.source?.includes('\u0000') === true) return [];
    let sortSource = false;
    if (checked.source !== null) {
      const [count] = await this.db.query<{ n: number }>(COUNT_SOURCE, [this.id, checked.source]);
      sortSource = count!.n <= SORT_AT_MOST;
    }
    const { sql, params } = listEventsSql(checked, sortSource);
    const rows = await this.db.query<EventRecord>(sql, [this.id, checked.limit, ...params]);
    return rows.map(toEventRow);
  }

  async redrive(eventId: number): Promise<boolean> {
    v.validateEventId(eventId);
    return this.writeExisting(false, async (tx) => {
      const redriven = await redrive(tx, eventId);
      // The event is work again: wake the workers now rather than at their next poll.
      if (redriven) tx.wakeSubscribers = true;
      return redriven;
    });
  }

  async stats(): Promise<InboxStats> {
    const [row] = await this.db.query<StatsRow>(STATS, [this.id, this.db.appNow()]);
    return toStats(row);
  }

  async approvals(query?: { limit?: number }): Promise<ApprovalRow[]> {
    const limit = d.validatePageQuery(query);
    return (await this.db.query<ApprovalRecord>(LIST_APPROVALS, [this.id, limit])).map(toApprovalRow);
  }

  async outbox(query?: { limit?: number }): Promise<OutboxView> {
    const limit = d.validatePageQuery(query);
    const rows = await this.db.query<OutboxRecord & { part: 'held' | 'sent' }>(OUTBOX_VIEW, [this.id, limit]);
    const held = rows.filter((row) => row.part === 'held').map(toOutboxRow);
    if (held.length === 0) return { held, heldCount: 0, sent: sentFirst(rows), nextSendAt: null };
    const [work] = await this.db.query<{ send_at: number | null }>(NEXT_SEND_AT, [this.id]);
    const heldCount = held.length < limit ? held.length : (await this.db.query<{ n: number }>(HELD_COUNT, [this.id]))[0]!.n;
    return { held: held.sort((a, b) => a.id - b.id), heldCount, sent: sentFirst(rows), nextSendAt: work?.send_at ?? null };
  }

  async activity(query: { since: number; bucketMs: number }): Promise<ActivityBucket[]> {
    const checked = d.validateActivityQuery(query);
    const now = this.db.appNow() ?? (await this.db.query<{ now: number }>(STORE_NOW, [null]))[0]!.now;
    const count = d.bucketCount(checked, now);
    if (count === 0) return [];
    const rows = await this.db.queryByIndex<ActivityRecord>(ACTIVITY, [this.id, checked.since, checked.bucketMs, now]);
    return toActivity(rows, checked, count);
  }

  async expediteOutbox(): Promise<number> {
    return this.writeExisting(0, (tx) => expediteOutbox(tx));
  }

  async recordAction(action: Omit<OperatorAction, 'at'>): Promise<void> {
    const checked = d.validateOperatorAction(action);
    await this.write((tx) => recordAction(tx, checked));
  }

  async actions(query?: { limit?: number }): Promise<OperatorAction[]> {
    const limit = d.validatePageQuery(query);
    return (await this.db.query<ActionRecord>(LIST_ACTIONS, [this.id, limit])).map(toOperatorAction);
  }
}

/** The sent part of an outbox view, newest first. */
function sentFirst(rows: (OutboxRecord & { part: 'held' | 'sent' })[]): OutboxRow[] {
  return rows
    .filter((row) => row.part === 'sent')
    .map(toOutboxRow)
    .sort((a, b) => (b.sentAt ?? 0) - (a.sentAt ?? 0) || b.id - a.id);
}

/**
 * R1 on PostgreSQL: a key with U+0000 cannot be stored in text (SQLite can
 * store it), so it is an invalid event here rather than a driver error.
 * Payloads are unaffected: JSON escapes the character.
 */
function withoutNul(event: CheckedEvent): CheckedEvent {
  if (event.source.includes('\u0000') || event.sourceId.includes('\u0000')) {
    throw new VigilError('invalid_event', 'source and sourceId cannot contain the NUL character (\\u0000) in a PostgreSQL store');
  }
  return event;
}
