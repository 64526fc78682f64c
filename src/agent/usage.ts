/**
 * A run's model usage (contract.ts, Usage): summed over its model steps,
 * checked where an agent hands it over, so a bad figure is the agent's
 * error at the point it is made, not a broken total later.
 */
import { VigilError } from '../errors.js';
import type { Usage } from '../store/contract.js';

export type { Usage };

const COUNTS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** The sum of two usages; either may be absent (a model that reports none). */
export function addUsage(total: Usage | undefined, step: Usage | undefined): Usage | undefined {
  if (step === undefined) return total;
  if (total === undefined) return { ...step };
  const sum: Usage = { inputTokens: total.inputTokens + step.inputTokens, outputTokens: total.outputTokens + step.outputTokens };
  for (const key of ['cacheReadTokens', 'cacheWriteTokens', 'costUsd'] as const) {
    if (total[key] !== undefined || step[key] !== undefined) sum[key] = (total[key] ?? 0) + (step[key] ?? 0);
  }
  return sum;
}

/** The usage, with only its known fields, or a VigilError saying which field is wrong. */
export function checkUsage(value: unknown, where = 'usage'): Usage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new VigilError('invalid_argument', `${where} must be { inputTokens, outputTokens, cacheReadTokens?, cacheWriteTokens?, costUsd? }`);
  }
  const given = value as Record<string, unknown>;
  const usage: Record<string, number> = {};
  for (const key of COUNTS) {
    const count = given[key];
    if (count === undefined && (key === 'cacheReadTokens' || key === 'cacheWriteTokens')) continue;
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) throw new VigilError('invalid_argument', `${where}.${key} must be a whole number of tokens, 0 or more`);
    usage[key] = count;
  }
  const cost = given.costUsd;
  if (cost !== undefined) {
    if (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0) throw new VigilError('invalid_argument', `${where}.costUsd must be a finite number of US dollars, 0 or more`);
    usage.costUsd = cost;
  }
  return usage as unknown as Usage;
}
