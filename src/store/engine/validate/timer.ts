/** R7's input: one-off, interval or cron; never both `every` and `cron`; fixed keys on one-offs only. */
import { Cron } from 'croner';
import { VigilError } from '../../../errors.js';
import type { MissedPolicy, TimerSpec } from '../../contract.js';
import { toJson } from './json.js';
import { checkInstant, MAX_DURATION_MS } from './bounds.js';
import { checkKey, describe } from './text.js';

/** Short enough that the event key `<id>@<scheduledFor>` stays within 256 characters. */
export const MAX_TIMER_ID_LENGTH = 200;

/** A timer as stored: every field checked, the cron pattern parsed once. */
export interface CheckedTimer {
  id: string;
  due: number | null;
  every: number | null;
  cron: string | null;
  tz: string | null;
  missed: MissedPolicy;
  payloadJson: string;
  key: { source: string; sourceId: string } | null;
}

export function validateTimer(timer: unknown, maxPayloadBytes: number): CheckedTimer {
  if (typeof timer !== 'object' || timer === null) throw new VigilError('invalid_timer', 'a timer must be an object');
  const spec = timer as TimerSpec;
  validateTimerId(spec.id);
  const fail = (message: string): never => {
    throw new VigilError('invalid_timer', `timer ${JSON.stringify(spec.id)}: ${message}`);
  };
  const every = spec.every ?? null;
  const cron = spec.cron ?? null;
  const tz = spec.tz ?? null;
  const missed = spec.missed ?? 'coalesce';
  if (every !== null && cron !== null) fail('use either every or cron, not both');
  // Bounded (bounds.ts): an `every` of 2^53-1 fired once, then its next due was past the date range.
  if (every !== null && (typeof every !== 'number' || !Number.isSafeInteger(every) || every <= 0 || every > MAX_DURATION_MS)) {
    fail(`every must be a whole number of milliseconds from 1 to ${MAX_DURATION_MS} (ten years), got ${describe(every)}`);
  }
  if (tz !== null && cron === null) fail('tz applies to cron timers only');
  if (cron !== null) checkCron(cron, tz, fail);
  if (missed !== 'coalesce' && missed !== 'each') fail(`missed must be 'coalesce' or 'each', got ${describe(missed)}`);
  let due: number | null = null;
  if (spec.due !== undefined) {
    due = checkInstant('invalid_timer', `timer ${JSON.stringify(spec.id)}: due`, spec.due);
  } else if (cron === null) {
    fail('due is required unless the timer has a cron pattern');
  }
  let key: CheckedTimer['key'] = null;
  if (spec.key !== undefined) {
    if (every !== null || cron !== null) fail('a recurring timer cannot use a fixed event key: each occurrence needs its own');
    const k = spec.key as unknown;
    if (typeof k !== 'object' || k === null) fail('key must be { source, sourceId }');
    const { source, sourceId } = spec.key;
    checkKey('invalid_timer', 'key.source', source);
    checkKey('invalid_timer', 'key.sourceId', sourceId);
    key = { source, sourceId };
  }
  const payload = spec.payload ?? {};
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    fail('payload must be a plain object (the scheduler adds scheduledFor, lateBy and skipped to it)');
  }
  const payloadJson = toJson('invalid_timer', `timer ${JSON.stringify(spec.id)}: payload`, payload, maxPayloadBytes);
  return { id: spec.id, due, every, cron, tz, missed, payloadJson, key };
}

function checkCron(cron: unknown, tz: unknown, fail: (message: string) => never): void {
  if (typeof cron !== 'string' || cron.trim() === '') fail('cron must be a non-empty pattern string');
  if (tz !== null && (typeof tz !== 'string' || !isTimeZone(tz))) fail(`tz ${describe(tz)} is not an IANA time zone`);
  try {
    new Cron(cron as string, { timezone: (tz as string | null) ?? undefined, paused: true });
  } catch (error) {
    fail(`cron pattern ${JSON.stringify(cron)} is invalid: ${(error as Error).message}`);
  }
}

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function validateTimerId(id: unknown): string {
  checkKey('invalid_timer', 'timer id', id, MAX_TIMER_ID_LENGTH);
  return id;
}
