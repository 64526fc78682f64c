/**
 * The run's usage from the result message's `modelUsage` (every model call
 * of the query, subagents and compaction included), in Vigil's shape. A
 * resumed session's totals start from what its transcript saved, so the
 * run reports the difference from the totals the last run ended with.
 */
import type { ModelUsage } from '@anthropic-ai/claude-agent-sdk';
import type { Usage } from '../../agent/usage.js';

export function usageOf(modelUsage: Readonly<Record<string, ModelUsage>> | undefined): Usage | undefined {
  if (modelUsage === undefined || Object.keys(modelUsage).length === 0) return undefined;
  const total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
  for (const model of Object.values(modelUsage)) {
    total.inputTokens += count(model.inputTokens);
    total.outputTokens += count(model.outputTokens);
    total.cacheReadTokens! += count(model.cacheReadInputTokens);
    total.cacheWriteTokens! += count(model.cacheCreationInputTokens);
    total.costUsd! += Number.isFinite(model.costUSD) && model.costUSD > 0 ? model.costUSD : 0;
  }
  // The SDK's cost is kept as given; the model is named when there was one.
  const models = Object.keys(modelUsage);
  if (models.length === 1) total.model = models[0]!;
  return total;
}

/** What this run added to a cumulative total (never below 0: a /clear resets the SDK's totals). */
export function usageSince(now: Usage | undefined, before: Usage | undefined): Usage | undefined {
  if (now === undefined) return undefined;
  // Totals below the last run's: the SDK started counting afresh (a /clear, a transcript without them).
  if (before === undefined || now.inputTokens < before.inputTokens || now.outputTokens < before.outputTokens) return now;
  const less = (a: number | undefined, b: number | undefined): number => Math.max(0, (a ?? 0) - (b ?? 0));
  return {
    inputTokens: less(now.inputTokens, before.inputTokens),
    outputTokens: less(now.outputTokens, before.outputTokens),
    cacheReadTokens: less(now.cacheReadTokens, before.cacheReadTokens),
    cacheWriteTokens: less(now.cacheWriteTokens, before.cacheWriteTokens),
    costUsd: Math.max(0, (now.costUsd ?? 0) - (before.costUsd ?? 0)),
  };
}

function count(value: number): number {
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}
