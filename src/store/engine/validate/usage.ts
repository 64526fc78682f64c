/**
 * A run's model usage (contract/usage.ts): whole token counts and a finite
 * cost, or a VigilError saying which field is wrong. Checked where an agent
 * hands it over (src/agent/usage.ts re-exports this) and again at the
 * finish that records it, so a bad figure never reaches a total.
 */
import { VigilError } from '../../../errors.js';
import type { Usage } from '../../contract.js';
import { checkInstant } from './bounds.js';
import { describe } from './text.js';

const DAY_MS = 86_400_000;

/** The longest model id a usage may name. */
const MAX_MODEL_ID = 200;

const COUNTS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

/** The usage, with only its known fields, or a VigilError (`invalid_argument`) naming the field. */
export function checkUsage(value: unknown, where = 'usage'): Usage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new VigilError('invalid_argument', `${where} must be { inputTokens, outputTokens, cacheReadTokens?, cacheWriteTokens?, costUsd?, unpriced?, model? }`);
  }
  const given = value as Record<string, unknown>;
  const usage: Record<string, number | boolean> = {};
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
  const unpriced = given.unpriced;
  if (unpriced !== undefined) {
    if (typeof unpriced !== 'boolean') throw new VigilError('invalid_argument', `${where}.unpriced must be a boolean`);
    if (unpriced) usage.unpriced = true;
  }
  const model = given.model;
  if (model !== undefined) {
    if (typeof model !== 'string' || model === '' || model.length > MAX_MODEL_ID) throw new VigilError('invalid_argument', `${where}.model must be a model id, 1 to ${MAX_MODEL_ID} characters`);
    (usage as Record<string, unknown>).model = model;
  }
  return usage as unknown as Usage;
}

/** Whether a usage says nothing was spent: such a run records no usage row. */
export function isEmptyUsage(usage: Usage): boolean {
  return usage.inputTokens === 0 && usage.outputTokens === 0 && (usage.cacheReadTokens ?? 0) === 0 && (usage.cacheWriteTokens ?? 0) === 0 && (usage.costUsd ?? 0) === 0;
}

/** The longest window `inbox.usage` reads, by period: a bounded number of buckets and of the slots behind them. */
export const USAGE_QUERY_MAX_DAYS = { day: 400, month: 1_100 } as const;

export interface CheckedUsageQuery {
  from: number;
  to: number;
  by: 'day' | 'month';
}

/** `inbox.usage`'s query (contract/usage.ts, UsageQuery), or `invalid_argument` naming the field. */
export function validateUsageQuery(query: unknown): CheckedUsageQuery {
  if (typeof query !== 'object' || query === null || Array.isArray(query)) {
    throw new VigilError('invalid_argument', "usage takes { from, to, by?: 'day' | 'month' } (ms since the epoch)");
  }
  const { from, to, by = 'day' } = query as Record<string, unknown>;
  checkInstant('invalid_argument', 'from', from);
  checkInstant('invalid_argument', 'to', to);
  if (by !== 'day' && by !== 'month') throw new VigilError('invalid_argument', `by must be 'day' or 'month', got ${describe(by)}`);
  if ((from as number) > (to as number)) throw new VigilError('invalid_argument', `from (${from as number}) must be at or before to (${to as number})`);
  const days = USAGE_QUERY_MAX_DAYS[by];
  if ((to as number) - (from as number) > days * DAY_MS) {
    throw new VigilError('invalid_argument', `to - from must be at most ${days} days by ${by}, got ${Math.ceil(((to as number) - (from as number)) / DAY_MS)} days`);
  }
  return { from: from as number, to: to as number, by };
}
