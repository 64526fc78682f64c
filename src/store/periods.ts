/**
 * A person's days and months, in their IANA time zone: where one begins and
 * where the next one does, as instants. Pure functions shared by every
 * store, for the budget (engine/budget.ts), which counts spend per local
 * day and month. A day starts at its first instant (local midnight, or the
 * first instant after it where a DST change skips midnight); so a day is 23
 * or 25 hours long across a DST change and a month starts at its own local
 * midnight whatever offset it has. Days come from pacing.ts's (croner's)
 * midnights, so the budget and the daily limit agree on when a day starts.
 */
import { localDay, MAX_CACHED, nextLocalDay } from './pacing.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The first instant of the local day `now` falls on in `timeZone`. */
export function startOfLocalDay(now: number, timeZone: string): number {
  // No local day is longer than 25 hours: the next day start after 26 hours back is this
  // day's start or the one before it; walk forward to the last one at or before now.
  let start = nextLocalDay(now - 26 * HOUR, timeZone);
  for (let next = nextLocalDay(start, timeZone); next <= now; next = nextLocalDay(next, timeZone)) start = next;
  return start;
}

/** When the local day after `now`'s begins. */
export function startOfNextLocalDay(now: number, timeZone: string): number {
  return nextLocalDay(now, timeZone);
}

/** The first instant of the local month `now` falls in. */
export function startOfLocalMonth(now: number, timeZone: string): number {
  // From this day's noon back one day per day of the month gone: still that first day's
  // noon give or take a DST hour, whose day start is the month's.
  const dayOfMonth = Number(localDay(now, timeZone).slice(8, 10));
  return startOfLocalDay(startOfLocalDay(now, timeZone) + 12 * HOUR - (dayOfMonth - 1) * DAY, timeZone);
}

/** When the local month after `now`'s begins. */
export function startOfNextLocalMonth(now: number, timeZone: string): number {
  const [year, month] = localDay(now, timeZone).split('-').map(Number) as [number, number];
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  // The month's first noon plus its length in days is the next month's first noon, give or take an hour.
  return startOfLocalDay(startOfLocalMonth(now, timeZone) + 12 * HOUR + days * DAY, timeZone);
}

/** The four instants a budget judges by, at `now` in `timeZone`. */
export interface LocalPeriods {
  dayStart: number;
  nextDayStart: number;
  monthStart: number;
  nextMonthStart: number;
}

const kept = new Map<string, LocalPeriods>();

/**
 * The local day's and month's bounds around `now`, kept per time zone for
 * the rest of that day: a finish that reports usage asks for them, and each
 * croner step with a zone costs a fraction of a millisecond.
 */
export function localPeriods(now: number, timeZone: string): LocalPeriods {
  const known = kept.get(timeZone);
  if (known !== undefined && now >= known.dayStart && now < known.nextDayStart) return known;
  const periods = {
    dayStart: startOfLocalDay(now, timeZone),
    nextDayStart: startOfNextLocalDay(now, timeZone),
    monthStart: startOfLocalMonth(now, timeZone),
    nextMonthStart: startOfNextLocalMonth(now, timeZone),
  };
  if (kept.size >= MAX_CACHED) kept.clear();
  kept.set(timeZone, periods);
  return periods;
}
