/**
 * A run's model usage (contract.ts, Usage): summed over its model steps,
 * checked where an agent hands it over, so a bad figure is the agent's
 * error at the point it is made, not a broken total later.
 */
import type { RunBudget, Usage } from '../store/contract.js';

// The check is the store's (its finish checks again): one rule for both.
export { checkUsage } from '../store/index.js';

export type { Usage };

/** The sum of two usages; either may be absent (a model that reports none). */
export function addUsage(total: Usage | undefined, step: Usage | undefined): Usage | undefined {
  if (step === undefined) return total;
  if (total === undefined) return { ...step };
  const sum: Usage = { inputTokens: total.inputTokens + step.inputTokens, outputTokens: total.outputTokens + step.outputTokens };
  for (const key of ['cacheReadTokens', 'cacheWriteTokens', 'costUsd'] as const) {
    if (total[key] !== undefined || step[key] !== undefined) sum[key] = (total[key] ?? 0) + (step[key] ?? 0);
  }
  // A priced part and an unpriced part make a cost that covers only some of the tokens.
  const partlyPriced = sum.costUsd !== undefined && ((total.costUsd === undefined && hasTokens(total)) || (step.costUsd === undefined && hasTokens(step)));
  if (total.unpriced === true || step.unpriced === true || partlyPriced) sum.unpriced = true;
  if (total.model !== undefined && total.model === step.model) sum.model = total.model;
  return sum;
}

function hasTokens(usage: Usage): boolean {
  return totalTokens(usage) > 0;
}

/** Every kind of token: what a budget's tokensPerDay counts (engine/budget.ts sums the same columns). */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/**
 * The run has used up its cap (ctx.budget): its cost (unpriced parts count
 * as none, as the budget counts them) or its tokens reached what was left.
 */
export function capReached(usage: Usage | undefined, cap: RunBudget | null | undefined): boolean {
  if (cap === null || cap === undefined) return false;
  const cost = usage?.costUsd ?? 0;
  const tokens = usage === undefined ? 0 : totalTokens(usage);
  return (cap.costLeftUsd !== null && cost >= cap.costLeftUsd) || (cap.tokensLeft !== null && tokens >= cap.tokensLeft);
}
