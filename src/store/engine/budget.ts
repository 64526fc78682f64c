/**
 * A budget per user (settings `budget`, contract/budget.ts): the one rule
 * that decides when an inbox is paused for spend, for both stores.
 *
 * Where it is judged: right after a finish that recorded usage, and on a
 * settings change, in a transaction of its own (the port's judgeSpend),
 * from the sums of the inbox's `usage` rows since its person's local day
 * and month began. That keeps the hot path as it was: the claim (R4) and
 * the wake rule only compare the stored `paused_until` with now, and an
 * inbox without a budget pays nothing but that comparison (and, for a run
 * that reported usage, the judgement's read of its settings). Judging in
 * TypeScript keeps the periods (DST, IANA zones: periods.ts) and the
 * notice's text in one place for SQLite and PostgreSQL alike.
 *
 * Each backend runs it as: read the settings and the stored pause, ask
 * `periods` where the day and month began (null: no budget applies), sum
 * the usage since then, ask `decide`, write the pause, and queue the notice
 * it gives (urgent) in the same transaction.
 */
import type { BudgetLeft, BudgetState, InboxBudget, InboxSettings, RunBudget, SpendReason } from '../contract.js';
import { localPeriods } from '../periods.js';

/** Where the sums start: the local day's and month's first instants. */
export interface SpendPeriods {
  dayStart: number;
  monthStart: number;
}

/** What the inbox's usage rows add up to since each period began; unpriced usage adds no cost. */
export interface SpendSums {
  tokensToday: number;
  costTodayUsd: number;
  costMonthUsd: number;
}

/** The pause as a store keeps it per inbox. `noticedUntil`: the pause the person was last told of (one notice per period). */
export interface PauseRow {
  pausedUntil: number | null;
  reason: SpendReason | null;
  noticedUntil: number | null;
}

/** What a judgement writes: the pause (cleared: nulls), and the urgent notice to queue, if one is due. */
export interface SpendVerdict extends PauseRow {
  notice: string | null;
  left: BudgetLeft;
}

export interface SpendJudge {
  /** Null when no budget applies (nothing to sum: the pause, if any, is cleared). */
  periods(settings: InboxSettings, now: number): SpendPeriods | null;
  decide(settings: InboxSettings, sums: SpendSums | null, now: number, previous: PauseRow): SpendVerdict;
}

/** What a backend's judgeSpend answers: the pause before, and the verdict written (null: an inbox never written). */
export interface SpendJudgement {
  before: PauseRow;
  verdict: SpendVerdict;
}

/** The verdict's `left` when no budget applies (compared by identity). */
export const NO_BUDGET_LEFT: BudgetLeft = Object.freeze({ tokensToday: null, costTodayUsd: null, costMonthUsd: null });

/** The inbox's own budget, each field overriding the service's default; null when neither sets anything. */
export function effectiveBudget(settings: InboxSettings, defaults: InboxBudget | null): InboxBudget | null {
  const budget = { ...(defaults ?? {}), ...(settings.budget ?? {}) };
  return Object.keys(budget).length === 0 ? null : budget;
}

/** The person's time zone: the one their days and months are counted in. */
export function timeZoneOf(settings: InboxSettings): string {
  return settings.timeZone ?? 'UTC';
}

/** The store's judge, given the service's default budget. */
export function spendJudge(defaults: InboxBudget | null): SpendJudge {
  return {
    periods(settings, now) {
      if (effectiveBudget(settings, defaults) === null) return null;
      const { dayStart, monthStart } = localPeriods(now, timeZoneOf(settings));
      return { dayStart, monthStart };
    },
    decide(settings, sums, now, previous) {
      const budget = effectiveBudget(settings, defaults);
      if (budget === null || sums === null) return { pausedUntil: null, reason: null, noticedUntil: previous.noticedUntil, notice: null, left: NO_BUDGET_LEFT };
      const zone = timeZoneOf(settings);
      const left = leftOf(budget, sums);
      const spent = spentBy(budget, left);
      if (spent.length === 0) return { pausedUntil: null, reason: null, noticedUntil: previous.noticedUntil, notice: null, left };
      // Paused until the earliest boundary that frees it: the month's end if any month part is spent, else the day's.
      const monthly = spent.find((s) => s.period === 'month');
      const { reason, period } = monthly ?? spent[0]!;
      const bounds = localPeriods(now, zone);
      const pausedUntil = period === 'month' ? bounds.nextMonthStart : bounds.nextDayStart;
      // One notice per period: a raise and a second spend before the same boundary stays quiet.
      const notice = previous.noticedUntil === pausedUntil ? null : noticeText(pausedUntil, zone);
      return { pausedUntil, reason, noticedUntil: pausedUntil, notice, left };
    },
  };
}

/** What is left of each part set, never below zero. */
export function leftOf(budget: InboxBudget, sums: SpendSums): BudgetLeft {
  const rest = (limit: number | undefined, used: number): number | null => (limit === undefined ? null : Math.max(0, limit - used));
  return {
    tokensToday: rest(budget.tokensPerDay, sums.tokensToday),
    costTodayUsd: rest(budget.costPerDayUsd, sums.costTodayUsd),
    costMonthUsd: rest(budget.costPerMonthUsd, sums.costMonthUsd),
  };
}

/** The parts spent, in the order they are named; minimumLeftUsd: a run never starts with less than it left. */
function spentBy(budget: InboxBudget, left: BudgetLeft): { reason: SpendReason; period: 'day' | 'month' }[] {
  const spent: { reason: SpendReason; period: 'day' | 'month' }[] = [];
  const minimum = budget.minimumLeftUsd ?? 0;
  if (left.tokensToday !== null && left.tokensToday <= 0) spent.push({ reason: 'tokensPerDay', period: 'day' });
  if (left.costTodayUsd !== null && left.costTodayUsd <= 0) spent.push({ reason: 'costPerDayUsd', period: 'day' });
  else if (left.costTodayUsd !== null && left.costTodayUsd < minimum) spent.push({ reason: 'minimumLeftUsd', period: 'day' });
  if (left.costMonthUsd !== null && left.costMonthUsd <= 0) spent.push({ reason: 'costPerMonthUsd', period: 'month' });
  else if (left.costMonthUsd !== null && left.costMonthUsd < minimum) spent.push({ reason: 'minimumLeftUsd', period: 'month' });
  return spent;
}

/** The cap of the next run: the least of what is left of each cost part, and the day's tokens. */
export function runBudgetOf(left: BudgetLeft): RunBudget {
  const costs = [left.costTodayUsd, left.costMonthUsd].filter((cost): cost is number => cost !== null);
  return { costLeftUsd: costs.length === 0 ? null : Math.min(...costs), tokensLeft: left.tokensToday };
}

/** stats().budget: the pause the store keeps (what the claim obeys), while it lasts, and what is left now. */
export function budgetStateOf({ before, verdict }: SpendJudgement, now: number): BudgetState {
  const paused = before.pausedUntil !== null && before.pausedUntil > now;
  return { pausedUntil: paused ? before.pausedUntil : null, reason: paused ? before.reason : null, left: verdict.left };
}

/** Every kind of token a run used counts against tokensPerDay. */
export const TOKENS_SQL = 'input_tokens + output_tokens + cache_read_tokens + cache_write_tokens';

/** The urgent message the person gets once per period: fixed text, the time in their own zone. */
export function noticeText(until: number, timeZone: string): string {
  const when = new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'short' }).format(new Date(until));
  return `Your assistant's budget is spent: it is paused, and what arrives meanwhile waits. Work resumes on ${when} (${timeZone}), or as soon as the budget is raised.`;
}
