/**
 * The one Inbox (contract.ts), on any backend's port. Each method validates
 * its input (validate/, once, by rule), runs the backend's verb with the
 * rule's plan where the rule decides on rows (scheduler.ts, approvals.ts,
 * dispatch.ts), then tells subscribers and emits what happened: the wake-up
 * hints a worker pool and a dispatcher follow, and the domain events logs
 * and metrics subscribe to. A backend never validates, plans, notifies or
 * emits; that is why there is one of this and not one per store.
 */
import type { RuntimeEvents } from '../../events.js';
import { VigilError } from '../../errors.js';
import type {
  ApprovalAnswer,
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalRow,
  ClaimedEvent,
  ClaimedRun,
  DispatchOptions,
  EffectIntent,
  EffectQuery,
  EffectRow,
  EffectStart,
  EventQuery,
  EventRow,
  Inbox,
  InboxSettings,
  InboxStats,
  IngestOptions,
  NewEvent,
  NextBatch,
  OperatorAction,
  RunBudget,
  RunOutcome,
  SendFn,
  TimerRow,
  TimerSpec,
  UsageBucket,
  UsageQuery,
  WakeKind,
} from '../contract.js';
import type { ResolvedOptions } from '../options.js';
import { nextCronTime } from '../schedule.js';
import { decideAnswer } from './approvals.js';
import { toEffectRows } from './effects.js';
import { budgetStateOf, effectiveBudget, NO_BUDGET_LEFT, runBudgetOf, spendJudge, type SpendJudgement } from './budget.js';
import { dispatchOutbox } from './dispatch.js';
import { quotaError } from './quota.js';
import type { InboxPort } from './port.js';
import { planSchedulerPass } from './scheduler.js';
import { usageByPeriod, usageNow } from './usage.js';
import * as v from './validate/index.js';

/** What every inbox of one store shares. */
export interface EngineContext {
  readonly options: ResolvedOptions;
  readonly events: RuntimeEvents;
  /** Tells subscribers (every process, on PostgreSQL); never fails: a lost hint loses nothing but time. */
  notify(inboxId: string, kind: WakeKind): Promise<void>;
  /** The application's clock, where it has one (the database's clock decides inside transactions). */
  appNow(): number;
}

export class EngineInbox implements Inbox {
  constructor(
    private readonly port: InboxPort,
    private readonly ctx: EngineContext,
  ) {}

  get id(): string {
    return this.port.id;
  }

  /** R1. A lone ingest may share its commit with others arriving at once; `true` still means durable. */
  async ingest(event: NewEvent, options?: IngestOptions): Promise<boolean> {
    const checked = v.validateEvent(event, this.ctx.options.maxPayloadBytes);
    const quota = options?.quota === undefined ? null : v.validateQuota(options.quota);
    const [result = false] = await this.port.insertEvents([checked], { single: true, wake: true, quota });
    if (typeof result !== 'boolean') {
      this.ctx.events.emit('ingest:refused', { inboxId: this.id, source: checked.source, reason: result.refused });
      throw quotaError(this.id, result);
    }
    this.ingested([checked], [result]);
    return result;
  }

  async ingestMany(events: readonly NewEvent[]): Promise<boolean[]> {
    const checked = v.validateEvents(events, this.ctx.options.maxPayloadBytes);
    if (checked.length === 0) return [];
    // Without a quota a port answers only stored or duplicate.
    const stored = (await this.port.insertEvents(checked, { single: false, wake: true, quota: null })) as boolean[];
    this.ingested(checked, stored);
    return stored;
  }

  private ingested(events: v.CheckedEvent[], stored: boolean[]): void {
    if (!this.ctx.events.has('event:ingested')) return;
    events.forEach((event, i) => {
      this.ctx.events.emit('event:ingested', { inboxId: this.id, source: event.source, sourceId: event.sourceId, stored: stored[i] === true });
    });
  }

  /** R2. `lease:acquired` is emitted for a new generation, not for a renewal. */
  async acquire(holder: string): Promise<number | null> {
    v.validateHolder(holder);
    const acquired = await this.port.acquire(holder);
    if (acquired === null) return null;
    if (!acquired.renewed) this.ctx.events.emit('lease:acquired', { inboxId: this.id, gen: acquired.gen, takeover: acquired.takeover });
    return acquired.gen;
  }

  async release(holder: string, gen: number): Promise<boolean> {
    v.validateHolder(holder);
    v.validateGen(gen);
    return this.port.release(holder, gen);
  }

  /** R4, fenced by R3. */
  async claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]> {
    v.validateHolder(holder);
    v.validateGen(gen);
    const { events, dead } = await this.port.claim(holder, gen);
    if (dead.length > 0) this.ctx.events.emit('events:dead', { inboxId: this.id, error: 'too many attempts', events: dead });
    return events;
  }

  /** R3, R5, R6. A finish that queues messages tells the dispatchers. */
  async finish(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<boolean> {
    v.validateHolder(holder);
    v.validateGen(gen);
    const eventIds = v.validateEventIds(ids);
    const checked = v.validateOutcome(outcome, this.ctx.options.maxPayloadBytes);
    const finished = await this.port.finish({ holder, gen, ids: eventIds, outcome: checked, wake: checked.messages.length > 0 });
    if (finished && checked.dead && eventIds.length > 0) this.diedAtOnce(eventIds, checked.error!);
    if (finished && checked.usage !== null && (await this.budgetApplies())) await this.judgeSpend();
    return finished;
  }

  /** R2 then R4 in one transaction (contract.ts): the same events as acquire and claimBatch. */
  async acquireAndClaim(holder: string): Promise<ClaimedRun | null> {
    v.validateHolder(holder);
    const result = await this.port.acquireAndClaim(holder);
    if (result === null) return null;
    const { acquired, claim } = result;
    if (!acquired.renewed) this.ctx.events.emit('lease:acquired', { inboxId: this.id, gen: acquired.gen, takeover: acquired.takeover });
    if (claim.dead.length > 0) this.ctx.events.emit('events:dead', { inboxId: this.id, error: 'too many attempts', events: claim.dead });
    return { gen: acquired.gen, events: claim.events };
  }

  /** R3, R5 then R4 in one transaction (contract.ts): the same events and hints as finish and claimBatch. */
  async finishAndClaim(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<NextBatch> {
    v.validateHolder(holder);
    v.validateGen(gen);
    const eventIds = v.validateEventIds(ids);
    const checked = v.validateOutcome(outcome, this.ctx.options.maxPayloadBytes);
    const judge = checked.usage !== null && (await this.budgetApplies()) ? spendJudge(this.ctx.options.budget) : undefined;
    if (judge !== undefined && !this.port.judgesInFinish) return this.finishJudgeAndClaim(holder, gen, eventIds, checked);
    const { finished, claim, judged } = await this.port.finishAndClaim({ holder, gen, ids: eventIds, outcome: checked, wake: checked.messages.length > 0, judge });
    if (judged !== undefined && judged !== null) await this.spendJudged(judged);
    if (finished && checked.dead && eventIds.length > 0) this.diedAtOnce(eventIds, checked.error!);
    if (claim.dead.length > 0) this.ctx.events.emit('events:dead', { inboxId: this.id, error: 'too many attempts', events: claim.dead });
    return { finished, events: claim.events };
  }

  /**
   * A finish that recorded usage, judged (engine/budget.ts) before the next
   * claim, so that a run that spent the budget is the last one: the finish,
   * the judgement, then an empty finish under the same lease that renews it
   * and claims (or releases it when the claim takes nothing, as a paused
   * inbox's does). Three transactions where there is one otherwise, only
   * for runs that reported usage: a model call takes far longer.
   */
  private async finishJudgeAndClaim(holder: string, gen: number, ids: number[], checked: v.CheckedOutcome): Promise<NextBatch> {
    const finished = await this.port.finish({ holder, gen, ids, outcome: checked, wake: checked.messages.length > 0 });
    if (!finished) return { finished: false, events: [] };
    if (checked.dead && ids.length > 0) this.diedAtOnce(ids, checked.error!);
    await this.judgeSpend();
    const empty = v.validateOutcome(undefined, this.ctx.options.maxPayloadBytes);
    const { claim } = await this.port.finishAndClaim({ holder, gen, ids: [], outcome: empty, wake: false });
    if (claim.dead.length > 0) this.ctx.events.emit('events:dead', { inboxId: this.id, error: 'too many attempts', events: claim.dead });
    return { finished: true, events: claim.events };
  }

  /**
   * Whether a budget applies (the store's default, or the inbox's own): one
   * settings read, so that a run reporting usage in an inbox without a
   * budget keeps its one-transaction finish. A pause outlives no budget: a
   * settings change that removes one judges (and clears) it at once.
   */
  private async budgetApplies(): Promise<boolean> {
    if (this.ctx.options.budget !== null) return true;
    return effectiveBudget(await this.port.settings(), null) !== null;
  }

  /** The budget's judgement, written; tells the dispatchers of its notice, and emits a new pause. */
  private async judgeSpend(): Promise<void> {
    const judged = await this.port.judgeSpend(spendJudge(this.ctx.options.budget));
    if (judged !== null) await this.spendJudged(judged);
  }

  /** What a judgement changed, told: the notice to the dispatchers, a new pause to the event stream. */
  private async spendJudged({ before, verdict }: SpendJudgement): Promise<void> {
    if (verdict.notice !== null) await this.ctx.notify(this.id, 'outbox');
    if (verdict.pausedUntil !== null && verdict.pausedUntil !== before.pausedUntil) {
      this.ctx.events.emit('inbox:paused-for-spend', { inboxId: this.id, reason: verdict.reason!, until: verdict.pausedUntil });
    }
  }

  /** R6 without the wait (a terminal error, a screening step). The run that said so knows the events; the store did not read them again. */
  private diedAtOnce(ids: number[], error: string): void {
    if (!this.ctx.events.has('events:dead')) return;
    const events = ids.map((id) => ({ id, source: null, sourceId: null, attempts: null, lastError: error }));
    this.ctx.events.emit('events:dead', { inboxId: this.id, error, events });
  }

  /** R7: a cron timer with no `due` is first due at its next match after the transaction's now. */
  async addTimer(timer: TimerSpec): Promise<void> {
    const checked = v.validateTimer(timer, this.ctx.options.maxPayloadBytes);
    const firstDue = (now: number): number => {
      const due = checked.due ?? nextCronTime(checked.cron!, checked.tz, now);
      if (due === null) throw new VigilError('invalid_timer', `timer ${JSON.stringify(checked.id)}: cron pattern never matches after now`);
      return due;
    };
    // Refused before the transaction too: a refused timer must not leave an empty inbox behind.
    if (checked.due === null) firstDue(this.ctx.appNow());
    await this.port.addTimer(checked, firstDue);
    await this.ctx.notify(this.id, 'work');
  }

  async removeTimer(id: string): Promise<boolean> {
    v.validateTimerId(id);
    return this.port.removeTimer(id);
  }

  async timers(): Promise<TimerRow[]> {
    return this.port.timers();
  }

  /** R7: returns how many timers (and expired approvals, and approvals' reminders) were due. A pass never starts a run. */
  async runScheduler(): Promise<number> {
    let due = 0;
    await this.port.fireTimers((timers, approvals, now, reminders = []) => {
      const plan = planSchedulerPass(timers, approvals, now, reminders);
      due = timers.length + approvals.length + plan.remindedApprovals.length;
      return plan;
    });
    if (due > 0) this.ctx.events.emit('scheduler:fired', { inboxId: this.id, due });
    return due;
  }

  async requestApproval(request: ApprovalRequest): Promise<void> {
    const checked = v.validateApprovalRequest(request, this.ctx.options.maxPayloadBytes);
    await this.port.requestApproval(checked);
    await this.ctx.notify(this.id, 'work');
  }

  async answerApproval(id: string, answer: ApprovalAnswer): Promise<ApprovalOutcome> {
    v.validateApprovalId(id);
    v.validateAnswer(answer);
    const outcome = await this.port.answerApproval(id, decideAnswer(id, answer));
    if (outcome !== 'unknown') {
      await this.ctx.notify(this.id, 'work');
      this.ctx.events.emit('approval:answered', { inboxId: this.id, approvalId: id, outcome });
    }
    return outcome;
  }

  /** R9. */
  async dispatch(send: SendFn, options: DispatchOptions = {}): Promise<number> {
    if (typeof send !== 'function') throw new VigilError('invalid_argument', 'dispatch needs a send function');
    return dispatchOutbox(this.port, send, {
      atMostOnce: options.atMostOnce === true,
      gapMs: this.ctx.options.outboxGapMs,
      onRecorded: ({ sent, held, failures }) => {
        this.ctx.events.emit('outbox:dispatched', { inboxId: this.id, count: sent, held });
        for (const failure of failures) this.ctx.events.emit('outbox:failed', { inboxId: this.id, ...failure });
      },
      onFailures: (failures) => {
        for (const failure of failures) this.ctx.events.emit('outbox:failed', { inboxId: this.id, ...failure });
      },
      onRefused: () => this.ctx.events.emit('inbox:write-refused', { inboxId: this.id, write: 'send record', reason: 'deleted' }),
    });
  }

  /** Failed messages held again for their channel: a dispatcher hears of them now. */
  async redriveOutbox(options: { channel?: string } = {}): Promise<number> {
    const count = await this.port.redriveOutbox(failuresChannel('redriveOutbox', options));
    if (count > 0) await this.ctx.notify(this.id, 'outbox');
    return count;
  }

  /** Failed messages dropped: nothing is sent, so no dispatcher needs to hear of it. */
  async dropOutbox(options: { channel?: string } = {}): Promise<number> {
    return this.port.dropOutbox(failuresChannel('dropOutbox', options));
  }

  async getSession(): Promise<unknown> {
    return this.port.getSession();
  }

  async getMemory(): Promise<Record<string, unknown>> {
    return this.port.getMemory();
  }

  async getEvent(source: string, sourceId: string): Promise<EventRow | null> {
    v.checkKey('invalid_argument', 'source', source);
    v.checkKey('invalid_argument', 'sourceId', sourceId);
    return this.port.getEvent(source, sourceId);
  }

  async getApproval(id: string): Promise<ApprovalRow | null> {
    v.validateApprovalId(id);
    return this.port.getApproval(id);
  }

  async events(query?: EventQuery): Promise<EventRow[]> {
    return this.port.events(v.validateEventQuery(query));
  }

  /** R6: the event is work again: the workers hear of it now rather than at their next poll. */
  async redrive(eventId: number): Promise<boolean> {
    v.validateEventId(eventId);
    const redriven = await this.port.redrive(eventId);
    if (redriven) await this.ctx.notify(this.id, 'work');
    return redriven;
  }

  /** The stored counts, and the model usage of today and this month in the inbox's time zone (usage.ts). */
  async stats(): Promise<InboxStats> {
    const [stats, spend, model] = await Promise.all([
      this.port.stats(),
      this.port.readSpend(spendJudge(this.ctx.options.budget)),
      this.port.settings().then((settings) => usageNow(this.port, settings)),
    ]);
    const budget = spend === null || spend.verdict.left === NO_BUDGET_LEFT ? null : budgetStateOf(spend, this.ctx.appNow());
    return { ...stats, usage: { ...stats.usage, ...model }, budget };
  }

  async runBudget(): Promise<RunBudget | null> {
    const spend = await this.port.readSpend(spendJudge(this.ctx.options.budget));
    return spend === null || spend.verdict.left === NO_BUDGET_LEFT ? null : runBudgetOf(spend.verdict.left);
  }

  async usage(query: UsageQuery): Promise<UsageBucket[]> {
    const checked = v.validateUsageQuery(query);
    return usageByPeriod(this.port, await this.port.settings(), checked);
  }

  async expediteOutbox(): Promise<number> {
    const count = await this.port.expediteOutbox();
    if (count > 0) {
      await this.ctx.notify(this.id, 'outbox');
      this.ctx.events.emit('outbox:expedited', { inboxId: this.id, count });
    }
    return count;
  }

  /** The ledger (contract/effects.ts): R3-fenced, its own durable write before the tool runs. */
  async startEffect(holder: string, gen: number, intent: EffectIntent): Promise<EffectStart | null> {
    v.validateHolder(holder);
    v.validateGen(gen);
    return this.port.startEffect(holder, gen, v.validateIntent(intent, this.ctx.options.maxPayloadBytes));
  }

  async effects(query?: EffectQuery): Promise<EffectRow[]> {
    const { which, limit } = v.validateEffectQuery(query);
    return toEffectRows(await this.port.effects(which, limit), which);
  }

  async settleEffect(key: string, state: 'confirmed' | 'failed'): Promise<void> {
    const checkedKey = v.validateEffectKey(key);
    const checkedState = v.validateSettledState(state);
    await this.port.settleEffect(checkedKey, checkedState);
    this.ctx.events.emit('effect:settled', { inboxId: this.id, key: checkedKey, state: checkedState });
  }

  async recordAction(action: Omit<OperatorAction, 'at'>): Promise<void> {
    await this.port.recordAction(v.validateOperatorAction(action));
  }

  async settings(): Promise<InboxSettings> {
    return this.port.settings();
  }

  /**
   * A merge patch, checked whole before anything is written. A change can
   * make held messages due (a shorter gap, quiet hours removed) or events
   * ready (a shorter debounce): both kinds of subscriber are told.
   */
  async updateSettings(patch: unknown): Promise<InboxSettings> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      throw new VigilError('invalid_settings', `a settings patch must be an object, got ${v.describe(patch)}`);
    }
    const settings = await this.port.updateSettings((current) => v.patchSettings(current, patch));
    // A raised (or removed) budget frees a paused inbox at once; a lowered one may pause it.
    await this.judgeSpend();
    await this.ctx.notify(this.id, 'work');
    await this.ctx.notify(this.id, 'outbox');
    return settings;
  }
}

/** The channel a verb on failed messages names, or null for all of them. */
function failuresChannel(verb: string, options: { channel?: string }): string | null {
  if (typeof options !== 'object' || options === null) throw new VigilError('invalid_argument', `${verb} takes { channel? }`);
  if (options.channel !== undefined) v.checkKey('invalid_argument', 'channel', options.channel, 64);
  return options.channel ?? null;
}
