/**
 * Quotas (contract/limits.ts): the limits an ingest is given, an inbox's
 * own `limits` setting, and the rule that the setting is the operator's:
 * an agent's patch that names it is refused.
 */
import { VigilError, type VigilErrorCode } from '../../../errors.js';
import type { InboxLimits } from '../../contract.js';
import { checkBounded } from './bounds.js';
import { describe } from './text.js';

export const LIMIT_KEYS = ['pendingEventsPerInbox', 'pendingBytesPerInbox', 'eventsPerMinutePerInbox'] as const;

/**
 * The largest limit: every sum the check makes (a count plus a batch) stays
 * a safe integer, on both stores (PostgreSQL's bigint holds it).
 */
export const MAX_LIMIT = 2 ** 50;

/** Settings keys only an operator may set: the service token's API, the CLI, the dashboard. */
export const OPERATOR_ONLY_SETTINGS = ['limits', 'budget'] as const;

/** An ingest's quota: every limit given. */
export function validateQuota(value: unknown): InboxLimits {
  return limitsOf('invalid_argument', 'quota', value, true) as InboxLimits;
}

/** An inbox's own `limits` setting: any of them. */
export function validateLimitSettings(value: unknown): Partial<InboxLimits> {
  return limitsOf('invalid_settings', 'limits', value, false);
}

/**
 * Refuses a settings patch from an agent (ctx.updateSettings) that names an
 * operator-only key, even to remove it: a prompt-injected agent must not be
 * able to raise, or clear, its own quota.
 */
export function refuseOperatorOnly(patch: unknown): void {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return;
  const key = OPERATOR_ONLY_SETTINGS.find((name) => Object.hasOwn(patch, name));
  if (key !== undefined) {
    throw new VigilError('operator_only', `the "${key}" setting is the operator's: an agent cannot change it (use the API with the service token, \`vigil settings\` or the dashboard)`, {
      field: key,
    });
  }
}

function limitsOf(code: VigilErrorCode, field: string, value: unknown, whole: boolean): Partial<InboxLimits> {
  // As every settings refusal reads (validate/settings.ts): "settings <field> ...".
  const what = code === 'invalid_settings' ? 'settings ' : '';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VigilError(code, `${what}${field} must be an object, got ${describe(value)}`, { field });
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).find((key) => !(LIMIT_KEYS as readonly string[]).includes(key));
  if (unknown !== undefined) throw new VigilError(code, `${what}${field}.${unknown} is not a limit (known: ${LIMIT_KEYS.join(', ')})`, { field: `${field}.${unknown}` });
  const limits: Partial<InboxLimits> = {};
  for (const key of LIMIT_KEYS) {
    if (given[key] === undefined && !whole) continue;
    limits[key] = checkBounded(code, `${what}${field}.${key}`, given[key], 0, MAX_LIMIT, '', `${field}.${key}`);
  }
  return limits;
}
