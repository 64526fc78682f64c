/**
 * The engine's port on one SQLite file (engine/port.ts): each verb is one
 * BEGIN IMMEDIATE transaction of its rule's module. Reads of an inbox that
 * was never written, and writes that only change existing rows, find no
 * file and create none.
 */
import type { ApprovalOutcome, EventRow, InboxSettings, InboxStats, OutboxFailureReport, TimerRow } from '../contract.js';
import type { Acquired, Claim, DecideAnswer, FinishOptions, InboxPort, PlanDispatch, PlanFiring, Reserved, ReserveOptions } from '../engine/port.js';
import type { CheckedAction, CheckedApproval, CheckedEvent, CheckedEventQuery, CheckedOutcome, CheckedSettings, CheckedTimer } from '../engine/validate/index.js';
import type { DispatchPlan } from '../outbox-batch.js';
import { emptyStats } from '../rows.js';
import { answerApproval, requestApproval } from './approvals.js';
import { claimBatch } from './claim.js';
import { recordSent, redriveFailures, releaseBatch, reserveBatch } from './dispatch.js';
import { finishRun } from './finish.js';
import type { InboxDb } from './inbox-db.js';
import { acquireLease, releaseLease } from './lease.js';
import { expediteOutbox, recordAction } from './operator.js';
import { getEvent, getMemory, getSession, listEvents, redrive, stats } from './read.js';
import { readSettings, writeSettings } from './settings.js';
import { acquireAndClaim, finishAndClaim } from './run-step.js';
import { fireTimers, listTimers, removeTimer, upsertTimer } from './timers.js';

/** What an inbox needs from its store: a connection, opened (and created) on demand. */
export interface InboxFiles {
  /** The open file, or null when `create` is false and the inbox was never written. */
  connection(inboxId: string, create: boolean): InboxDb | null;
  now(): number;
  /** Tells this process's subscribers. */
  wake(inboxId: string, kind: 'work' | 'outbox'): void;
  /** Stores events of one inbox in one transaction (R1 for each); `single` ones may share it with others arriving together. */
  storeEvents(inboxId: string, events: CheckedEvent[], single: boolean): Promise<boolean[]>;
}

export class SqliteInboxPort implements InboxPort {
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

  async insertEvents(events: CheckedEvent[], { single, wake }: { single: boolean; wake: boolean }): Promise<boolean[]> {
    const stored = await this.files.storeEvents(this.id, events, single);
    if (wake && stored.includes(true)) this.files.wake(this.id, 'work');
    return stored;
  }

  async acquire(holder: string): Promise<Acquired | null> {
    const c = this.writer();
    return c.write((now) => acquireLease(c, holder, now), { durability: 'process' });
  }

  async release(holder: string, gen: number): Promise<boolean> {
    const c = this.existing();
    return c === null ? false : c.write((now) => releaseLease(c, holder, gen, now), { durability: 'process' });
  }

  async claim(holder: string, gen: number): Promise<Claim> {
    const c = this.existing();
    return c === null ? { events: [], dead: [] } : c.write((now) => claimBatch(c, holder, gen, now), { durability: 'process' });
  }

  async finish(holder: string, gen: number, ids: number[], outcome: CheckedOutcome, { wake, rollback = false }: FinishOptions): Promise<boolean> {
    const c = this.existing();
    if (c === null) return false;
    if (rollback) {
      c.writeThenRollBack((now) => finishRun(c, holder, gen, ids, outcome, now));
      return false;
    }
    const finished = c.write((now) => finishRun(c, holder, gen, ids, outcome, now));
    if (finished && wake) this.files.wake(this.id, 'outbox');
    return finished;
  }

  async acquireAndClaim(holder: string): Promise<{ acquired: Acquired; claim: Claim } | null> {
    const c = this.writer();
    return c.write((now) => acquireAndClaim(c, holder, now), { durability: 'process' });
  }

  /** Durable, as finish is: the claim and release in its transaction are only stronger for it. */
  async finishAndClaim(
    holder: string,
    gen: number,
    ids: number[],
    outcome: CheckedOutcome,
    { wake, rollback = false }: FinishOptions,
  ): Promise<{ finished: boolean; claim: Claim }> {
    const c = this.existing();
    if (c === null) return { finished: false, claim: { events: [], dead: [] } };
    if (rollback) {
      c.writeThenRollBack((now) => finishAndClaim(c, holder, gen, ids, outcome, now));
      return { finished: false, claim: { events: [], dead: [] } };
    }
    const result = c.write((now) => finishAndClaim(c, holder, gen, ids, outcome, now));
    if (result.finished && wake) this.files.wake(this.id, 'outbox');
    return result;
  }

  async addTimer(timer: CheckedTimer, firstDue: (now: number) => number): Promise<void> {
    const c = this.writer();
    c.write((now) => upsertTimer(c, timer, firstDue(now)));
  }

  async removeTimer(id: string): Promise<boolean> {
    const c = this.existing();
    return c === null ? false : c.write(() => removeTimer(c, id));
  }

  async fireTimers(plan: PlanFiring): Promise<void> {
    const c = this.existing();
    if (c === null) plan([], [], this.files.now());
    else c.write((now) => fireTimers(c, plan, now));
  }

  async requestApproval(request: CheckedApproval): Promise<void> {
    const c = this.writer();
    c.write((now) => requestApproval(c, request, now));
  }

  async answerApproval(id: string, decide: DecideAnswer): Promise<ApprovalOutcome> {
    const c = this.existing();
    return c === null ? 'unknown' : c.write((now) => answerApproval(c, id, decide, now));
  }

  async reserve(plan: PlanDispatch, { atMostOnce, rollback = false }: ReserveOptions): Promise<Reserved | null> {
    const c = this.existing();
    if (c === null) return null;
    if (rollback) {
      c.writeThenRollBack((now) => reserveBatch(c, plan, now, atMostOnce));
      return null;
    }
    return c.write((now) => reserveBatch(c, plan, now, atMostOnce));
  }

  // The file may have been closed by the LRU while the batch was sent: ask for it again.
  async unreserve(batch: DispatchPlan): Promise<void> {
    const c = this.writer();
    c.write(() => releaseBatch(c, batch));
  }

  async markSent(batch: DispatchPlan, failures: OutboxFailureReport[]): Promise<void> {
    const c = this.writer();
    c.write((now) => recordSent(c, batch, failures, now));
  }

  async redriveOutbox(channel: string | null): Promise<number> {
    const c = this.existing();
    return c === null ? 0 : c.write((now) => redriveFailures(c, channel, now));
  }

  async redrive(eventId: number): Promise<boolean> {
    const c = this.existing();
    return c !== null && c.write(() => redrive(c, eventId));
  }

  async expediteOutbox(): Promise<number> {
    const c = this.existing();
    return c === null ? 0 : c.write(() => expediteOutbox(c));
  }

  async recordAction(action: CheckedAction): Promise<void> {
    const c = this.writer();
    c.write((now) => recordAction(c, action, now));
  }

  async settings(): Promise<InboxSettings> {
    const c = this.existing();
    return c === null ? {} : c.read(() => readSettings(c));
  }

  async updateSettings(apply: (current: InboxSettings) => CheckedSettings): Promise<InboxSettings> {
    const c = this.writer();
    return c.write(() => {
      const next = apply(readSettings(c));
      writeSettings(c, next);
      return next.settings;
    });
  }

  async timers(): Promise<TimerRow[]> {
    const c = this.existing();
    return c === null ? [] : c.read(() => listTimers(c));
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

  async events(query: CheckedEventQuery): Promise<EventRow[]> {
    const c = this.existing();
    return c === null ? [] : c.read(() => listEvents(c, query));
  }

  async stats(): Promise<InboxStats> {
    const c = this.existing();
    if (c === null) return emptyStats();
    const now = this.files.now();
    return c.read(() => stats(c, now));
  }
}
