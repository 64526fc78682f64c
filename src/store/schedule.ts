/**
 * R7's timer arithmetic, shared by every store: which occurrences a due
 * timer fires in one scheduler pass and when it is due next. Pure functions
 * of the timer and "now", so both stores agree to the millisecond.
 */
import { Cron } from 'croner';
import type { MissedPolicy } from './contract.js';

/** `missed: 'each'` fires at most this many occurrences per timer per pass. */
export const MAX_EACH_PER_PASS = 1000;
/**
 * Counting skipped cron occurrences stops here, as firing them does for
 * 'each': a coalesced event reports at most this many. Each step is one
 * croner nextRun, ~0.3-0.5 ms with a time zone, inside the scheduler's write
 * transaction; 100,000 of them held an inbox (and the event loop) for ~30 s
 * after a long outage (found by the fuzz properties).
 */
export const MAX_CRON_COUNT = MAX_EACH_PER_PASS;

export interface Schedule {
  due: number;
  every: number | null;
  cron: string | null;
  tz: string | null;
  missed: MissedPolicy;
}

export interface Occurrence {
  scheduledFor: number;
  skipped: number;
}

export interface Firing {
  occurrences: Occurrence[];
  /** The next due time, or null when the timer has no further occurrence (done). */
  nextDue: number | null;
}

/** The next cron match strictly after `after`, or null if the pattern has none. */
export function nextCronTime(cron: string, tz: string | null, after: number): number | null {
  const next = cronOf(cron, tz).nextRun(new Date(after));
  return next === null ? null : next.getTime();
}

/**
 * The occurrences of a due timer (due <= now) to fire in this pass.
 * coalesce: one event for the latest missed occurrence, `skipped` counting
 * the ones passed over (a daily digest after a three-day outage says "this
 * covers four days" once). each: one event per occurrence, oldest first, at
 * most MAX_EACH_PER_PASS, the rest left due for the next pass.
 */
export function planFiring(timer: Schedule, now: number): Firing {
  if (timer.every !== null) return planInterval(timer.due, timer.every, timer.missed, now);
  if (timer.cron !== null) return planCron(timer, now);
  return { occurrences: [{ scheduledFor: timer.due, skipped: 0 }], nextDue: null };
}

function planInterval(due: number, every: number, missed: MissedPolicy, now: number): Firing {
  const behind = Math.floor((now - due) / every);
  if (missed === 'coalesce') {
    const latest = due + behind * every;
    return { occurrences: [{ scheduledFor: latest, skipped: behind }], nextDue: latest + every };
  }
  const count = Math.min(behind + 1, MAX_EACH_PER_PASS);
  const occurrences = Array.from({ length: count }, (_, i) => ({ scheduledFor: due + i * every, skipped: 0 }));
  return { occurrences, nextDue: due + count * every };
}

function planCron(timer: Schedule, now: number): Firing {
  const cron = cronOf(timer.cron as string, timer.tz);
  const times = [timer.due];
  const limit = timer.missed === 'each' ? MAX_EACH_PER_PASS : MAX_CRON_COUNT;
  let next = cron.nextRun(new Date(timer.due))?.getTime() ?? null;
  while (next !== null && next <= now && times.length < limit) {
    times.push(next);
    next = cron.nextRun(new Date(next))?.getTime() ?? null;
  }
  if (timer.missed === 'each') {
    return { occurrences: times.map((scheduledFor) => ({ scheduledFor, skipped: 0 })), nextDue: next };
  }
  // Past the counting limit, jump straight to the latest match and the one after it.
  if (next !== null && next <= now) {
    // croner's previousRuns looks strictly before the whole second it is given:
    // hand it the second after now, so a match at now itself counts. Then step
    // forward while a match still lies at or before now, so the next due is
    // always after now (a second pass at the same instant finds nothing).
    let latest = cron.previousRuns(1, new Date(now + 1_000))[0]?.getTime();
    if (latest === undefined || latest < next || latest > now) latest = next;
    next = cron.nextRun(new Date(latest))?.getTime() ?? null;
    while (next !== null && next <= now) {
      latest = next;
      next = cron.nextRun(new Date(next))?.getTime() ?? null;
    }
    times.push(latest);
  }
  const latest = times[times.length - 1]!;
  return { occurrences: [{ scheduledFor: latest, skipped: times.length - 1 }], nextDue: next };
}

const cronCache = new Map<string, Cron>();

function cronOf(pattern: string, tz: string | null): Cron {
  const cacheKey = `${tz ?? ''}\u0000${pattern}`;
  let cron = cronCache.get(cacheKey);
  if (cron === undefined) {
    cron = new Cron(pattern, { timezone: tz ?? undefined, paused: true });
    if (cronCache.size > 1000) cronCache.clear();
    cronCache.set(cacheKey, cron);
  }
  return cron;
}

/** The event key of one occurrence, unless the timer fixes its own (R7). */
export function timerEventKey(timerId: string, scheduledFor: number): { source: string; sourceId: string } {
  return { source: 'timer', sourceId: `${timerId}@${scheduledFor}` };
}
