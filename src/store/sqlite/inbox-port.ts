/**
 * The engine's port on one SQLite file (engine/port.ts): each verb is one
 * BEGIN IMMEDIATE transaction of its rule's module. Reads of an inbox that
 * was never written, and writes that only change existing rows, find no
 * file and create none.
 */
import type { ApprovalOutcome, ApprovalRow, EffectStart, EventRow, InboxLimits, InboxSettings, OutboxFailureReport, StoredStats, PruneResult, TimerRow } from '../contract.js';
import type {
  Acquired,
  Claim,
  DecideAnswer,
  CheckedFinish,
  InboxPort,
  StoredEffects,
  PlanDispatch,
  PlanFiring,
  PruneCutoffs,
  Reserved,
  ReserveOptions,
  StoredProgress,
  UsageSlot,
  UsageWindow,
} from '../engine/port.js';
import type { CheckedAction, CheckedApproval, CheckedEvent, CheckedEventQuery, CheckedIntent, CheckedSettings, CheckedTimer } from '../engine/validate/index.js';
import type { DispatchPlan } from '../outbox-batch.js';
import type { IngestResult } from '../engine/quota.js';
import { emptyStats } from '../rows.js';
import { answerApproval, getApproval, requestApproval } from './approvals.js';
import { claimBatch } from './claim.js';
import { judgeSpend } from './spend.js';
import type { SpendJudge, SpendJudgement } from '../engine/budget.js';
import { dropFailures, recordProgress, recordSent, redriveFailures, releaseBatch, reserveBatch } from './dispatch.js';
import { finishRun } from './finish.js';
import { listEffects, settleEffect, startEffect } from './effects.js';
import { checkSettleable } from '../engine/effects.js';
import type { InboxDb } from './inbox-db.js';
import { acquireLease, releaseLease } from './lease.js';
import { expediteOutbox, recordAction } from './operator.js';
import { pruneRows } from './prune.js';
import { getEvent, getMemory, getSession, listEvents, redrive, stats } from './read.js';
import { readSettings, writeSettings } from './settings.js';
import { acquireAndClaim, finishAndClaim } from './run-step.js';
import { fireTimers, listTimers, removeTimer, upsertTimer } from './timers.js';
import { usageSlots } from './usage.js';

/** What an inbox needs from its store: a connection, opened (and created) on demand. */
export interface InboxFiles {
  /**
   * Runs `fn` on the inbox's open file, or returns null when `create` is
   * false and the inbox has none. A file deleted meanwhile (by deleteInbox,
   * in any process) is let go and the inbox opened again by its name.
   */
  use<T>(inboxId: string, create: boolean, fn: (c: InboxDb) => T, options?: { passing?: boolean }): T | null;
  now(): number;
  /** Tells this process's subscribers. */
  wake(inboxId: string, kind: 'work' | 'outbox'): void;
  /** Stores events of one inbox in one transaction (R1 for each); `single` ones may share it with others arriving together. */
  storeEvents(inboxId: string, events: CheckedEvent[], single: boolean, quota: InboxLimits | null): Promise<IngestResult[]>;
}

export class SqliteInboxPort implements InboxPort {
  /** The finish's transaction runs here: the spend is judged in it (run-step.ts). */
  readonly judgesInFinish = true;

  constructor(
    private readonly files: InboxFiles,
    readonly id: string,
  ) {}

  /** `fn` on this inbox's file, created if need be. */
  private writer<T>(fn: (c: InboxDb) => T): T {
    return this.files.use(this.id, true, fn) as T;
  }

  /** `fn` on this inbox's file; null, creating nothing, when it has none. */
  private existing<T>(fn: (c: InboxDb) => T): T | null {
    return this.files.use(this.id, false, fn);
  }

  async insertEvents(events: CheckedEvent[], { single, wake, quota }: { single: boolean; wake: boolean; quota: InboxLimits | null }): Promise<IngestResult[]> {
    const stored = await this.files.storeEvents(this.id, events, single, quota);
    if (wake && stored.includes(true)) this.files.wake(this.id, 'work');
    return stored;
  }

  async acquire(holder: string): Promise<Acquired | null> {
    return this.writer((c) => c.write((now) => acquireLease(c, holder, now), { durability: 'process' }));
  }

  async release(holder: string, gen: number): Promise<boolean> {
    return this.existing((c) => c.write((now) => releaseLease(c, holder, gen, now), { durability: 'process' })) ?? false;
  }

  async claim(holder: string, gen: number): Promise<Claim> {
    return this.existing((c) => c.write((now) => claimBatch(c, holder, gen, now), { durability: 'process' })) ?? { events: [], dead: [] };
  }

  async finish(finish: CheckedFinish): Promise<boolean> {
    const finished = this.existing((c) => c.write((now) => finishRun(c, finish, now))) ?? false;
    if (finished && finish.wake) this.files.wake(this.id, 'outbox');
    return finished;
  }

  /** A lease commit, as acquire's: the claim and release in its transaction ride on it. */
  async acquireAndClaim(holder: string): Promise<{ acquired: Acquired; claim: Claim } | null> {
    return this.writer((c) => c.write((now) => acquireAndClaim(c, holder, now), { durability: 'process' }));
  }

  /** Durable, as finish is: the claim and release in its transaction are only stronger for it. */
  async finishAndClaim(finish: CheckedFinish): Promise<{ finished: boolean; claim: Claim; judged?: SpendJudgement }> {
    const refused = { finished: false, claim: { events: [], dead: [] } };
    const result = this.existing((c) => c.write((now) => finishAndClaim(c, finish, now))) ?? refused;
    if (result.finished && finish.wake) this.files.wake(this.id, 'outbox');
    return result;
  }

  async addTimer(timer: CheckedTimer, firstDue: (now: number) => number): Promise<void> {
    this.writer((c) => c.write((now) => upsertTimer(c, timer, firstDue(now))));
  }

  async removeTimer(id: string): Promise<boolean> {
    return this.existing((c) => c.write(() => removeTimer(c, id))) ?? false;
  }

  async fireTimers(plan: PlanFiring): Promise<void> {
    const fired = this.existing((c) => c.write((now) => fireTimers(c, plan, now)));
    if (fired === null) plan([], [], this.files.now());
  }

  async requestApproval(request: CheckedApproval): Promise<void> {
    this.writer((c) => c.write((now) => requestApproval(c, request, now)));
  }

  async answerApproval(id: string, decide: DecideAnswer): Promise<ApprovalOutcome> {
    return this.existing((c) => c.write((now) => answerApproval(c, id, decide, now))) ?? 'unknown';
  }

  async reserve(plan: PlanDispatch, { atMostOnce }: ReserveOptions): Promise<Reserved | null> {
    // A reservation survives a process crash but need not a power loss, which would only make its
    // batch sendable again, as a crash after it does; the record of the send syncs it with its own
    // commit. At most once, the reservation is the record of the send: durable.
    return this.existing((c) => c.write((now) => reserveBatch(c, plan, now, atMostOnce), { durability: atMostOnce ? 'durable' : 'process' }));
  }

  // Each is asked for the file by name (the LRU may have closed it while the batch was sent), but never
  // creates it: a file that is not there was deleted during the send, and the record must not bring it back.
  async recordProgress(progress: StoredProgress): Promise<boolean> {
    return this.existing((c) => c.write(() => recordProgress(c, progress), { durability: 'process' })) !== null;
  }

  async unreserve(batch: DispatchPlan): Promise<boolean> {
    return this.existing((c) => c.write(() => releaseBatch(c, batch))) !== null;
  }

  async markSent(batch: DispatchPlan, failures: OutboxFailureReport[]): Promise<boolean> {
    return this.existing((c) => c.write((now) => recordSent(c, batch, failures, now))) !== null;
  }

  async redriveOutbox(channel: string | null): Promise<number> {
    return this.existing((c) => c.write((now) => redriveFailures(c, channel, now))) ?? 0;
  }

  async dropOutbox(channel: string | null): Promise<number> {
    return this.existing((c) => c.write(() => dropFailures(c, channel))) ?? 0;
  }

  async redrive(eventId: number): Promise<boolean> {
    return this.existing((c) => c.write(() => redrive(c, eventId))) ?? false;
  }

  async expediteOutbox(): Promise<number> {
    return this.existing((c) => c.write(() => expediteOutbox(c))) ?? 0;
  }

  async recordAction(action: CheckedAction): Promise<void> {
    this.writer((c) => c.write((now) => recordAction(c, action, now)));
  }

  /** Durable before the tool runs: a crash after it must leave the call unknown, never forgotten. */
  async startEffect(holder: string, gen: number, intent: CheckedIntent): Promise<EffectStart | null> {
    return this.existing((c) => c.write((now) => startEffect(c, holder, gen, intent, now))) ?? null;
  }

  async settleEffect(key: string, state: 'confirmed' | 'failed'): Promise<void> {
    const settled = this.existing((c) => c.write((now) => (settleEffect(c, key, state, now), true)));
    // An inbox never written has no calls: settling one is the same refusal as for an unknown key.
    if (settled === null) checkSettleable(key, null, null, 0);
  }

  async effects(which: 'unknown' | 'all', limit: number): Promise<StoredEffects> {
    const now = this.files.now();
    return this.existing((c) => c.read(() => listEffects(c, which, limit, now))) ?? { rows: [], lease: null, now };
  }

  /** Opened outside the LRU when not open already: a sweep over every inbox must not push out the ones in use. */
  async prune(cutoffs: (now: number) => PruneCutoffs, limit: number): Promise<PruneResult> {
    const pruned = this.files.use(
      this.id,
      false,
      (c) => {
        const result = c.write((now) => pruneRows(c, cutoffs(now), limit));
        if (result.events + result.messages + result.approvals + result.actions + result.effects + result.usage > 0) c.releaseFreePages();
        return result;
      },
      { passing: true },
    );
    return pruned ?? { events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false };
  }

  async settings(): Promise<InboxSettings> {
    return this.existing((c) => c.read(() => readSettings(c))) ?? {};
  }

  async updateSettings(apply: (current: InboxSettings) => CheckedSettings): Promise<InboxSettings> {
    return this.writer((c) =>
      c.write(() => {
        const next = apply(readSettings(c));
        writeSettings(c, next);
        return next.settings;
      }),
    );
  }

  async judgeSpend(judge: SpendJudge): Promise<SpendJudgement | null> {
    return this.existing((c) => c.write((now) => judgeSpend(c, judge, now, true)));
  }

  async readSpend(judge: SpendJudge): Promise<SpendJudgement | null> {
    const now = this.files.now();
    return this.existing((c) => c.read(() => judgeSpend(c, judge, now, false)));
  }

  async timers(): Promise<TimerRow[]> {
    return this.existing((c) => c.read(() => listTimers(c))) ?? [];
  }

  async getSession(): Promise<unknown> {
    return this.existing((c) => c.read(() => getSession(c)));
  }

  async getMemory(): Promise<Record<string, unknown>> {
    return this.existing((c) => c.read(() => getMemory(c))) ?? {};
  }

  async getEvent(source: string, sourceId: string): Promise<EventRow | null> {
    return this.existing((c) => c.read(() => getEvent(c, source, sourceId)));
  }

  async getApproval(id: string): Promise<ApprovalRow | null> {
    return this.existing((c) => c.read(() => getApproval(c, id))) ?? null;
  }

  async events(query: CheckedEventQuery): Promise<EventRow[]> {
    return this.existing((c) => c.read(() => listEvents(c, query))) ?? [];
  }

  async stats(): Promise<StoredStats> {
    const now = this.files.now();
    return this.existing((c) => c.read(() => stats(c, now))) ?? emptyStats();
  }

  async usage(window: (now: number) => UsageWindow): Promise<{ now: number; slots: UsageSlot[] }> {
    const now = this.files.now();
    return { now, slots: this.existing((c) => c.read(() => usageSlots(c, window(now)))) ?? [] };
  }
}
