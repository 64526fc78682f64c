/**
 * An inbox's settings (contract.ts, InboxSettings): a JSON merge patch
 * applied to the ones stored, then the whole result checked, so a patch can
 * never leave settings that would not pass on their own. Unknown keys are
 * refused: a misspelt `quietHour` silently ignored would send messages at
 * 3 a.m.
 */
import { VigilError } from '../../../errors.js';
import type { InboxSettings, QuietHours } from '../../contract.js';
import { MAX_COUNT, MAX_DURATION_MS } from './bounds.js';
import { checkStorable, describe } from './text.js';
import { isTimeZone } from './timer.js';
import { validateLimitSettings } from './limits.js';
import { validateBudget } from './budget.js';

/** The settings as the SQL of both stores needs them beside the JSON: the gap, and the debounce with its cap. */
export interface CheckedSettings {
  settings: InboxSettings;
  json: string;
  gapMs: number | null;
  debounceMs: number | null;
  maxWaitMs: number | null;
}

export const CHANNEL_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
const MAX_CONTACT_LENGTH = 1_000;
/** A debounce caps its wait at this many times itself unless maxWaitMs says otherwise. */
export const DEFAULT_MAX_WAIT_FACTOR = 10;

/** RFC 7396: `null` removes, an object merges into an object, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** Applies `patch` to `current` and checks the result. */
export function patchSettings(current: InboxSettings, patch: unknown): CheckedSettings {
  if (!isPlainObject(patch)) throw invalid('', `a settings patch must be an object, got ${describe(patch)}`);
  return validateSettings(pruneEmpty(mergePatch(current, patch)));
}

export function validateSettings(value: unknown): CheckedSettings {
  const root = object('', value, ['timeZone', 'contacts', 'outbox', 'wake', 'limits', 'budget']);
  const settings: InboxSettings = {};
  if (root.timeZone !== undefined) {
    if (typeof root.timeZone !== 'string' || !isTimeZone(root.timeZone)) {
      throw invalid('timeZone', `must be an IANA time zone such as "Europe/Berlin", got ${describe(root.timeZone)}`);
    }
    settings.timeZone = root.timeZone;
  }
  if (root.contacts !== undefined) {
    const contacts = object('contacts', root.contacts, null);
    for (const [channel, address] of Object.entries(contacts)) {
      if (!CHANNEL_NAME_PATTERN.test(channel)) throw invalid(`contacts.${channel}`, 'a channel name is lowercase [a-z0-9_-], up to 64 characters');
      if (typeof address !== 'string' || address.length === 0 || address.length > MAX_CONTACT_LENGTH) {
        throw invalid(`contacts.${channel}`, `must be a non-empty string of at most ${MAX_CONTACT_LENGTH} characters, got ${describe(address)}`);
      }
      storable(`contacts.${channel}`, address);
    }
    settings.contacts = contacts as Record<string, string>;
  }
  if (root.outbox !== undefined) {
    const outbox = object('outbox', root.outbox, ['gapMs', 'quietHours', 'dailyLimit']);
    settings.outbox = {};
    if (outbox.gapMs !== undefined) settings.outbox.gapMs = count('outbox.gapMs', outbox.gapMs, MAX_DURATION_MS);
    if (outbox.quietHours !== undefined) settings.outbox.quietHours = quietHours(outbox.quietHours);
    if (outbox.dailyLimit !== undefined) settings.outbox.dailyLimit = count('outbox.dailyLimit', outbox.dailyLimit, MAX_COUNT);
  }
  if (root.wake !== undefined) {
    const wake = object('wake', root.wake, ['debounceMs', 'maxWaitMs']);
    settings.wake = {};
    if (wake.debounceMs !== undefined) settings.wake.debounceMs = count('wake.debounceMs', wake.debounceMs, MAX_DURATION_MS);
    if (wake.maxWaitMs !== undefined) {
      const maxWaitMs = count('wake.maxWaitMs', wake.maxWaitMs, MAX_DURATION_MS);
      if (settings.wake.debounceMs === undefined) throw invalid('wake.maxWaitMs', 'caps a debounce: set wake.debounceMs with it');
      if (maxWaitMs < settings.wake.debounceMs) throw invalid('wake.maxWaitMs', `must be at least wake.debounceMs (${settings.wake.debounceMs}), got ${maxWaitMs}`);
      settings.wake.maxWaitMs = maxWaitMs;
    }
  }
  if (root.limits !== undefined) settings.limits = validateLimitSettings(root.limits);
  if (root.budget !== undefined) settings.budget = validateBudget(root.budget, 'invalid_settings', 'budget');
  const debounceMs = settings.wake?.debounceMs ?? null;
  return {
    settings,
    json: JSON.stringify(settings),
    gapMs: settings.outbox?.gapMs ?? null,
    debounceMs: debounceMs === 0 ? null : debounceMs,
    maxWaitMs: debounceMs === null || debounceMs === 0 ? null : (settings.wake?.maxWaitMs ?? debounceMs * DEFAULT_MAX_WAIT_FACTOR),
  };
}

function quietHours(value: unknown): QuietHours {
  const hours = object('outbox.quietHours', value, ['from', 'to', 'timeZone']);
  for (const key of ['from', 'to'] as const) {
    if (typeof hours[key] !== 'string' || !TIME_OF_DAY.test(hours[key])) {
      throw invalid(`outbox.quietHours.${key}`, `must be a time of day "HH:MM" (00:00 to 23:59), got ${describe(hours[key])}`);
    }
  }
  // Without one of their own, quiet hours keep the inbox's timeZone (else UTC).
  if (hours.timeZone !== undefined && (typeof hours.timeZone !== 'string' || !isTimeZone(hours.timeZone))) {
    throw invalid('outbox.quietHours.timeZone', `must be an IANA time zone such as "Europe/Berlin", got ${describe(hours.timeZone)}`);
  }
  if (hours.from === hours.to) throw invalid('outbox.quietHours', `from and to are both ${String(hours.from)}: quiet hours need a start and a different end`);
  return { from: hours.from as string, to: hours.to as string, ...(hours.timeZone === undefined ? {} : { timeZone: hours.timeZone as string }) };
}

/** A plain object whose keys are all in `allowed` (null: any key). */
function object(field: string, value: unknown, allowed: readonly string[] | null): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalid(field, `must be an object, got ${describe(value)}`);
  if (allowed !== null) {
    const unknown = Object.keys(value).find((key) => !allowed.includes(key));
    if (unknown !== undefined) throw invalid(field === '' ? unknown : `${field}.${unknown}`, `is not a setting (known here: ${allowed.join(', ')})`);
  }
  return value;
}

/** A whole number from 0 to `max` (bounds.ts: a gap or debounce of 2^53-1 ms put the next send past the date range). */
function count(field: string, value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw invalid(field, `must be a whole number from 0 to ${max}, got ${describe(value)}`);
  }
  return value;
}

function storable(field: string, value: string): void {
  try {
    checkStorable('invalid_settings', field, value);
  } catch (error) {
    throw invalid(field, (error as Error).message.slice(field.length + 1));
  }
}

/** Objects a patch emptied are left out, so `{ outbox: { gapMs: null } }` leaves no `outbox: {}` behind. */
function pruneEmpty(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const pruned = pruneEmpty(item);
    if (isPlainObject(pruned) && Object.keys(pruned).length === 0) continue;
    result[key] = pruned;
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(field: string, problem: string): VigilError {
  return new VigilError('invalid_settings', field === '' ? `settings ${problem}` : `settings ${field} ${problem}`, field === '' ? {} : { field });
}
