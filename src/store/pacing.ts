/**
 * R9 per inbox: when a person's quiet hours hold their non-urgent messages,
 * and which local day a send counts against their daily limit. Pure
 * functions of the settings and "now", shared by every store.
 *
 * Times of day are wall-clock times in the settings' IANA time zone, and
 * the instants they fall on come from croner (as cron timers' do), so a DST
 * day is handled the way a cron timer is: a time that does not exist that
 * day (the spring gap) falls the gap's length later, and a time that occurs
 * twice (the autumn overlap) counts once, at its first occurrence. Whether
 * "now" is inside quiet hours is decided by instants too (the latest start
 * against the latest end), never by reading the local clock, so the hour an
 * autumn night repeats cannot make quiet hours begin a second time.
 */
import { Cron } from 'croner';
import type { QuietHours } from './contract.js';

export interface QuietState {
  quiet: boolean;
  /** When they end (the next `to`), while quiet; null otherwise. */
  endsAt: number | null;
}

export function quietState(hours: QuietHours, now: number): QuietState {
  const from = dailyAt(hours.from, hours.timeZone ?? 'UTC').around(now);
  const to = dailyAt(hours.to, hours.timeZone ?? 'UTC').around(now);
  const quiet = from.latest !== null && (to.latest === null || from.latest > to.latest);
  return { quiet, endsAt: quiet ? to.next : null };
}

/** The local calendar day of `now` in `timeZone` (YYYY-MM-DD): what a daily limit counts against. */
export function localDay(now: number, timeZone: string): string {
  return dayFormat(timeZone).format(new Date(now));
}

/** When the next local day begins in `timeZone` (its first instant, where midnight itself does not exist). */
export function nextLocalDay(now: number, timeZone: string): number {
  return dailyAt('00:00', timeZone).around(now).next!;
}

const DAY = 86_400_000;

/**
 * A time of day, every day, in one time zone: its occurrences around an
 * instant. Each croner step is a fraction of a millisecond with a time zone,
 * and a dispatcher pass asks for thousands of inboxes, mostly about the same
 * day: the last answer is kept, and holds for any instant from its latest
 * occurrence up to (not including) its next.
 */
class DailyTime {
  private latest: number | null = null;
  private next: number | null = null;
  /** From when the kept answer holds (its latest occurrence, or two days before the instant it was made for). */
  private validFrom = Infinity;

  constructor(private readonly cron: Cron) {}

  around(now: number): { latest: number | null; next: number | null } {
    if (!(now >= this.validFrom && (this.next === null || now < this.next))) {
      this.latest = this.latestAtOrBefore(now);
      this.next = this.cron.nextRun(new Date(now))?.getTime() ?? null;
      this.validFrom = this.latest ?? now;
    }
    return { latest: this.latest, next: this.next };
  }

  /**
   * The latest instant at or before `now`, found by stepping forward from
   * two days back. Not croner's previousRuns: in the hour an autumn night
   * repeats it skips back a whole day (02:15 CET, the second time round,
   * finds the previous day's 02:30 instead of that night's first).
   */
  private latestAtOrBefore(now: number): number | null {
    let latest: number | null = null;
    for (let next = this.cron.nextRun(new Date(now - 2 * DAY)); next !== null && next.getTime() <= now; next = this.cron.nextRun(next)) {
      latest = next.getTime();
    }
    return latest;
  }
}

const dailyTimes = new Map<string, DailyTime>();

/** `HH:MM` every day in `timeZone` (cached: planning a dispatch must not parse patterns, nor step croner again for the same day). */
function dailyAt(time: string, timeZone: string): DailyTime {
  return cached(dailyTimes, `${time} ${timeZone}`, () => {
    const [hour, minute] = time.split(':').map(Number);
    // No function: croner schedules nothing, it only computes instants.
    return new DailyTime(new Cron(`${minute} ${hour} * * *`, { timezone: timeZone }));
  });
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(timeZone: string): Intl.DateTimeFormat {
  return cached(dayFormats, timeZone, () => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }));
}

/** How many entries each of pacing's caches holds at most; past it, a cache starts over. */
export const MAX_CACHED = 1_000;

/** `cache`'s value for `key`, made once by `make` and kept: at most MAX_CACHED entries, so settings with ever new times and zones cannot grow it without bound. */
export function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, value);
  }
  return value;
}
