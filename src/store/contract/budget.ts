/**
 * The store contract, part: an inbox paused for spend (settings `budget`,
 * engine/budget.ts): why, until when, and what is left of the budget.
 */

/** Which of the budget's limits paused the inbox. */
export type SpendReason = 'tokensPerDay' | 'costPerDayUsd' | 'costPerMonthUsd' | 'minimumLeftUsd';

/** What is left of each part of the budget (null: that part is not set). Unpriced usage counts as no cost. */
export interface BudgetLeft {
  tokensToday: number | null;
  costTodayUsd: number | null;
  costMonthUsd: number | null;
}

/** stats().budget: null when no budget applies to the inbox. */
export interface BudgetState {
  /** Paused for spend until then (the next local day or month that frees it); null while not paused. */
  pausedUntil: number | null;
  reason: SpendReason | null;
  left: BudgetLeft;
}

/** What the next run may spend (the agent's cap, ctx.budget): null where the budget sets no limit of that kind. */
export interface RunBudget {
  costLeftUsd: number | null;
  tokensLeft: number | null;
}
