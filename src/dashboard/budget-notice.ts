/**
 * The inbox page's word on its budget (settings `budget`, stats().budget):
 * "paused for spend until …" while the inbox is paused, else what is left.
 * Nothing for an inbox no budget applies to.
 */
import { html, type Html } from '../http/html.js';
import type { BudgetState } from '../store/contract.js';
import { when } from './format.js';

const REASONS: Record<string, string> = {
  tokensPerDay: "the day's tokens are spent",
  costPerDayUsd: "the day's budget is spent",
  costPerMonthUsd: "the month's budget is spent",
  minimumLeftUsd: 'less than the minimum is left',
};

export function budgetNotice(budget: BudgetState | null | undefined, now: number): Html {
  if (budget === null || budget === undefined) return html``;
  if (budget.pausedUntil !== null) {
    return html`<p class="alert" id="budget-notice" role="status"><strong>Paused for spend</strong> until ${when(budget.pausedUntil, now)}: ${REASONS[budget.reason ?? ''] ?? 'the budget is spent'}. Its events wait; raising the budget (settings) resumes it at once.</p>`;
  }
  return html`<p class="muted" id="budget-notice">Budget left: ${leftText(budget)}</p>`;
}

function leftText({ left }: BudgetState): string {
  const parts: string[] = [];
  if (left.costTodayUsd !== null) parts.push(`$${left.costTodayUsd.toFixed(2)} today`);
  if (left.costMonthUsd !== null) parts.push(`$${left.costMonthUsd.toFixed(2)} this month`);
  if (left.tokensToday !== null) parts.push(`${left.tokensToday} tokens today`);
  return parts.join(' · ');
}
