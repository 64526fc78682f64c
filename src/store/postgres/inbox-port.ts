/**
 * The engine's port on PostgreSQL (engine/port.ts). Each verb is one
 * transaction on the inbox's locked row: the hot ones (insertEvents,
 * acquire, release, claim, finish) as one call of a server-side function
 * (call.ts, functions/), the others as a transaction of a few statements
 * (inbox-tx.ts) around the engine's plan. Reads and writes of an inbox that
 * was never written return empty results without creating it, as on SQLite.
 */
import type { ApprovalOutcome, ApprovalRow, EffectStart, EventRow, InboxLimits, InboxSettings, OutboxFailureReport, StoredStats, PruneResult, TimerRow } from '../contract.js';
import type {
  Acquired,
  Claim,
  DecideAnswer,
  CheckedFinish,
  InboxPort,
  StoredEffect,
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
import { toApprovalRow, toEventRow, toTimerRow, type ApprovalRecord, type EventRecord, type ListedTimerRecord } from '../rows.js';
import { answerApproval, GET_APPROVAL, requestApproval } from './approvals.js';
import type { CallTarget } from './call.js';
import { claimBatch } from './claim.js';
import { dropFailures, recordProgress, recordSent, redriveFailures, releaseBatch, reserveBatch } from './dispatch.js';
import { finishRun } from './finish.js';
import { LIST_ALL_EFFECTS, LIST_STARTED_EFFECTS, READ_LEASE, settleEffect, startEffect } from './effects.js';
import { checkSettleable } from '../engine/effects.js';
import type { InboxTx } from './inbox-tx.js';
import { ingestEvents } from './ingest.js';
import { acquireLease, releaseLease } from './lease.js';
import { expediteOutbox, recordAction } from './operator.js';
import { pruneRows } from './prune.js';
import { COUNT_SOURCE, GET_EVENT, listEventsSql, redrive, SORT_AT_MOST, STATS, toStats, type StatsRow } from './read.js';
import { acquireAndClaim, finishAndClaim } from './run-step.js';
import { READ_SETTINGS, readSettings, writeSettings } from './settings.js';
import { judgeOn, judgeSpend, READ_SPEND_STATE, type SpendStateRow } from './spend.js';
import type { SpendJudge, SpendJudgement } from '../engine/budget.js';
import { fireTimers, LIST_TIMERS, removeTimer, upsertTimer } from './timers.js';
import { usageSlots } from './usage.js';
import { DB_NOW_MS } from './connection.js';

/** What an inbox needs from its store. */
export interface InboxBackend extends CallTarget {
  /** One statement on a pooled connection: its own transaction, one snapshot. */
  query<T extends object>(sql: string, params: unknown[]): Promise<T[]>;
  /** The same, planned with index scans only (no sequential or bitmap heap scan). */
  queryByIndex<T extends object>(sql: string, params: unknown[]): Promise<T[]>;
  /** One transaction on the inbox's locked row; `absent` if it was never written and `create` is false. */
  transaction<T>(inboxId: string, create: boolean, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'>;
  /** One transaction that holds off a delete of the inbox but none of its writers (inbox-tx.ts, besideWriters). */
  besideWriters<T>(inboxId: string, fn: (tx: InboxTx) => Promise<T>): Promise<{ value: T } | 'absent'>;
}

export class PostgresInboxPort implements InboxPort {
  /** The finish is one server function call: the engine judges the spend in a transaction of its own. */
  readonly judgesInFinish = false;

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

  /** The wake-up hint is vigil_ingest's (functions/ingest.sql), sent in the same round trip. */
  async insertEvents(events: CheckedEvent[], { wake, quota }: { single: boolean; wake: boolean; quota: InboxLimits | null }): Promise<IngestResult[]> {
    return ingestEvents(this.db, this.id, events, wake, quota);
  }

  async acquire(holder: string): Promise<Acquired | null> {
    return acquireLease(this.db, this.id, holder);
  }

  async release(holder: string, gen: number): Promise<boolean> {
    return releaseLease(this.db, this.id, holder, gen);
  }

  async claim(holder: string, gen: number): Promise<Claim> {
    return claimBatch(this.db, this.id, holder, gen);
  }

  async finish(finish: CheckedFinish): Promise<boolean> {
    return finishRun(this.db, this.id, finish);
  }

  async acquireAndClaim(holder: string): Promise<{ acquired: Acquired; claim: Claim } | null> {
    return acquireAndClaim(this.db, this.id, holder);
  }

  async finishAndClaim(finish: CheckedFinish): Promise<{ finished: boolean; claim: Claim }> {
    return finishAndClaim(this.db, this.id, finish);
  }

  async addTimer(timer: CheckedTimer, firstDue: (now: number) => number): Promise<void> {
    await this.write((tx) => upsertTimer(tx, timer, firstDue(tx.now)));
  }

  async removeTimer(id: string): Promise<boolean> {
    return this.writeExisting(false, (tx) => removeTimer(tx, id));
  }

  async fireTimers(plan: PlanFiring): Promise<void> {
    const fired = await this.db.transaction(this.id, false, (tx) => fireTimers(tx, plan));
    if (fired === 'absent') plan([], [], 0);
  }

  async requestApproval(request: CheckedApproval): Promise<void> {
    await this.write((tx) => requestApproval(tx, request));
  }

  async answerApproval(id: string, decide: DecideAnswer): Promise<ApprovalOutcome> {
    return this.writeExisting<ApprovalOutcome>('unknown', (tx) => answerApproval(tx, id, decide));
  }

  async reserve(plan: PlanDispatch, { atMostOnce }: ReserveOptions): Promise<Reserved | null> {
    return this.writeExisting(null, (tx) => reserveBatch(tx, plan, atMostOnce));
  }

  // None creates the inbox: one not there was deleted during the send, and the record must not bring it back.
  async recordProgress(progress: StoredProgress): Promise<boolean> {
    return this.writeExisting(false, async (tx) => (await recordProgress(tx, progress), true));
  }

  async unreserve(batch: DispatchPlan): Promise<boolean> {
    return this.writeExisting(false, async (tx) => (await releaseBatch(tx, batch), true));
  }

  async markSent(batch: DispatchPlan, failures: OutboxFailureReport[]): Promise<boolean> {
    return this.writeExisting(false, async (tx) => (await recordSent(tx, batch, failures), true));
  }

  async redriveOutbox(channel: string | null): Promise<number> {
    return this.writeExisting(0, (tx) => redriveFailures(tx, channel));
  }

  async dropOutbox(channel: string | null): Promise<number> {
    return this.writeExisting(0, (tx) => dropFailures(tx, channel));
  }

  async redrive(eventId: number): Promise<boolean> {
    return this.writeExisting(false, (tx) => redrive(tx, eventId));
  }

  async expediteOutbox(): Promise<number> {
    return this.writeExisting(0, (tx) => expediteOutbox(tx));
  }

  async recordAction(action: CheckedAction): Promise<void> {
    await this.write((tx) => recordAction(tx, action));
  }

  /** Its own transaction, committed before the tool runs: a crash after it leaves the call unknown, never forgotten. */
  async startEffect(holder: string, gen: number, intent: CheckedIntent): Promise<EffectStart | null> {
    return this.writeExisting(null, (tx) => startEffect(tx, holder, gen, intent));
  }

  async settleEffect(key: string, state: 'confirmed' | 'failed'): Promise<void> {
    const settled = await this.db.transaction(this.id, false, (tx) => settleEffect(tx, key, state));
    // An inbox never written has no calls: the same refusal as for an unknown key.
    if (settled === 'absent') checkSettleable(key, null, null, 0);
  }

  async effects(which: 'unknown' | 'all', limit: number): Promise<StoredEffects> {
    const [lease] = await this.db.query<{ holder: string | null; gen: number; until: number | null; now: number }>(READ_LEASE, [this.id, this.db.appNow()]);
    if (lease === undefined) return { rows: [], lease: null, now: 0 };
    const rows = await this.db.query<StoredEffect>(which === 'all' ? LIST_ALL_EFFECTS : LIST_STARTED_EFFECTS, [this.id, limit]);
    const { holder, gen, until, now } = lease;
    return { rows, lease: holder === null || until === null ? null : { holder, gen, until }, now };
  }

  /** Beside the inbox's writers, not under their lock: an ingest never waits for a prune batch (prune.ts). */
  async prune(cutoffs: (now: number) => PruneCutoffs, limit: number): Promise<PruneResult> {
    const result = await this.db.besideWriters(this.id, (tx) => pruneRows(tx, cutoffs(tx.now), limit));
    return result === 'absent' ? { events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false } : result.value;
  }

  async settings(): Promise<InboxSettings> {
    const [row] = await this.db.query<{ json: string }>(READ_SETTINGS, [this.id]);
    return row === undefined ? {} : (JSON.parse(row.json) as InboxSettings);
  }

  async updateSettings(apply: (current: InboxSettings) => CheckedSettings): Promise<InboxSettings> {
    return this.write(async (tx) => {
      const next = apply(await readSettings(tx));
      await writeSettings(tx, next);
      return next.settings;
    });
  }

  async judgeSpend(judge: SpendJudge): Promise<SpendJudgement | null> {
    return this.writeExisting(null, (tx) => judgeSpend(tx, judge));
  }

  async readSpend(judge: SpendJudge): Promise<SpendJudgement | null> {
    const [row] = await this.db.query<SpendStateRow>(READ_SPEND_STATE, [this.id]);
    if (row === undefined) return null;
    // A read: with the database's clock (R13), this machine's is near enough to say what is left.
    return judgeOn((sql, params) => this.db.query(sql, params), this.id, row, judge, this.db.appNow() ?? Date.now());
  }

  async timers(): Promise<TimerRow[]> {
    return (await this.db.query<ListedTimerRecord>(LIST_TIMERS, [this.id])).map(toTimerRow);
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

  async getApproval(id: string): Promise<ApprovalRow | null> {
    const [row] = await this.db.query<ApprovalRecord>(GET_APPROVAL, [this.id, id]);
    return row === undefined ? null : toApprovalRow(row);
  }

  async events(query: CheckedEventQuery): Promise<EventRow[]> {
    let sortSource = false;
    if (query.source !== null) {
      const [count] = await this.db.query<{ n: number }>(COUNT_SOURCE, [this.id, query.source]);
      sortSource = count!.n <= SORT_AT_MOST;
    }
    const { sql, params } = listEventsSql(query, sortSource);
    const rows = await this.db.query<EventRecord>(sql, [this.id, query.limit, ...params]);
    return rows.map(toEventRow);
  }

  async stats(): Promise<StoredStats> {
    const [row] = await this.db.query<StatsRow>(STATS, [this.id, this.db.appNow()]);
    return toStats(row);
  }

  async usage(window: (now: number) => UsageWindow): Promise<{ now: number; slots: UsageSlot[] }> {
    const now = this.db.appNow() ?? (await this.db.query<{ now: number }>(`SELECT ${DB_NOW_MS} AS now`, []))[0]!.now;
    return { now, slots: await usageSlots((sql, params) => this.db.query(sql, params), this.id, window(now)) };
  }
}
