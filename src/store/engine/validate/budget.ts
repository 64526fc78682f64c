/**
 * A budget (contract/settings.ts, InboxBudget): an inbox's own `budget`
 * setting, or the service's default one. Tokens are whole numbers, costs
 * any non-negative amount of US dollars; anything else is refused naming
 * the field, before anything is written.
 */
import { VigilError, type VigilErrorCode } from '../../../errors.js';
import type { InboxBudget } from '../../contract.js';
import { MAX_LIMIT } from './limits.js';
import { describe } from './text.js';

export const BUDGET_KEYS = ['tokensPerDay', 'costPerDayUsd', 'costPerMonthUsd', 'minimumLeftUsd'] as const;

/** A billion dollars: more is a typo, and every sum stays exact enough. */
export const MAX_BUDGET_USD = 1_000_000_000;

export function validateBudget(value: unknown, code: VigilErrorCode, field: string): InboxBudget {
  const what = code === 'invalid_settings' ? 'settings ' : '';
  const refuse = (at: string, problem: string): never => {
    throw new VigilError(code, `${what}${at} ${problem}`, { field: at });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(field, `must be an object, got ${describe(value)}`);
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).find((key) => !(BUDGET_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) refuse(`${field}.${unknown}`, `is not a budget (known: ${BUDGET_KEYS.join(', ')})`);
  const budget: InboxBudget = {};
  for (const key of BUDGET_KEYS) {
    const amount = given[key];
    if (amount === undefined) continue;
    if (key === 'tokensPerDay') {
      if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0 || amount > MAX_LIMIT) {
        refuse(`${field}.${key}`, `must be a whole number of tokens from 0 to ${MAX_LIMIT}, got ${describe(amount)}`);
      }
    } else if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || amount > MAX_BUDGET_USD) {
      refuse(`${field}.${key}`, `must be an amount of US dollars from 0 to ${MAX_BUDGET_USD}, got ${describe(amount)}`);
    }
    budget[key] = amount as number;
  }
  return budget;
}
