/**
 * The largest number Vigil accepts wherever a number becomes a time or a
 * count: one place, so every input (settings, timers, approvals, store
 * options, the service's config, imports) is bounded alike.
 *
 * Why bounds at all: a "valid" integer can still break everyone. A gap or
 * an interval of 2^53-1 ms is a safe integer, but now + it is not: stored,
 * it passed 2^53 on PostgreSQL (every read of that row failed, the
 * overview and /healthz with it) and past JavaScript's date range
 * (±8.64e15 ms) on both stores (`new Date(due).toISOString()` throws).
 * So each maximum keeps every time Vigil computes from it (now + a
 * duration, a timer's next occurrences, a generation + 1) inside the date
 * range and every integer safe, with room to spare:
 *
 * - a time is within ±MAX_TIME_MS, the end of year 9999 (what ISO 8601's
 *   four-digit years, and most databases' date types, can write);
 * - a duration (a gap, a debounce, an interval, an expiry, a retention) is
 *   at most MAX_DURATION_MS, ten years: longer than anyone schedules, and
 *   year 9999 + ten years is still a 34th of the date range;
 * - a duration Node waits out with a timer (a lease, a run's timeout, a
 *   poll, a send's deadline) is at most MAX_TIMER_DELAY_MS, 2^31-1 ms
 *   (24.8 days): setTimeout fires a longer one after 1 ms instead;
 * - a lease generation is at most MAX_GENERATION, 2^50: each takeover adds
 *   one, and a million takeovers a second would take 250 years to leave
 *   the safe integers from there;
 * - a count (a daily limit, attempts, a batch) is at most MAX_COUNT, a
 *   billion, and a size in bytes at most MAX_BYTES, 1 GiB (PostgreSQL's
 *   largest field).
 */
import { VigilError, type VigilErrorCode } from '../../../errors.js';
import { describe } from './text.js';

const DAY_MS = 86_400_000;

/** 23:59:59.999 UTC on 31 December 9999. */
export const MAX_TIME_MS = 253_402_300_799_999;
/** Ten years of 365.25 days. */
export const MAX_DURATION_MS = 10 * 365.25 * DAY_MS;
/** The longest delay Node's timers honour. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;
export const MAX_GENERATION = 2 ** 50;
export const MAX_COUNT = 1_000_000_000;
export const MAX_BYTES = 2 ** 30;

/** Every bound, for the README, error messages and callers that check early. */
export const BOUNDS = {
  maxTimeMs: MAX_TIME_MS,
  maxDurationMs: MAX_DURATION_MS,
  maxTimerDelayMs: MAX_TIMER_DELAY_MS,
  maxGeneration: MAX_GENERATION,
  maxCount: MAX_COUNT,
  maxBytes: MAX_BYTES,
} as const;

/**
 * A whole number from `min` to `max`; else `code`, naming `name`.
 * `unit` ("ms", "bytes") is said with the maximum, so the message reads
 * "outbox.gapMs must be a whole number from 0 to 315576000000 ms".
 */
export function checkBounded(code: VigilErrorCode, name: string, value: unknown, min: number, max: number, unit = '', field?: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const suffix = unit === '' ? '' : ` ${unit}`;
    throw new VigilError(code, `${name} must be a whole number from ${min} to ${max}${suffix}, got ${describe(value)}`, field === undefined ? undefined : { field });
  }
  return value;
}

/** A point in time Vigil stores: integer ms within ±MAX_TIME_MS (the years -6060 to 9999). */
export function checkInstant(code: VigilErrorCode, name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new VigilError(code, `${name} must be integer milliseconds, got ${describe(value)}`);
  }
  if (Math.abs(value) > MAX_TIME_MS) {
    throw new VigilError(code, `${name} must be within ±${MAX_TIME_MS} ms of the epoch (the year 9999), got ${value}`);
  }
  return value;
}

/** JavaScript's date range: a Date holds at most this many ms either side of the epoch. */
const DATE_RANGE_MS = 8.64e15;

/**
 * Whether a time read back from a row can be shown as a date (a safe
 * integer inside JavaScript's date range). Wider than checkInstant: a
 * timer due in 9999 may move on to 10000; only a row no rule could have
 * written (an older version's, or one written by hand) fails it.
 */
export function isReadableInstant(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && Math.abs(value) <= DATE_RANGE_MS;
}
