/**
 * R7's timer arithmetic and R4's backoff as pure functions: both stores call
 * these, so their edges are pinned here once, to the millisecond.
 */
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../src/store/options.js';
import { MAX_EACH_PER_PASS, nextCronTime, planFiring, timerEventKey, type Schedule } from '../../src/store/schedule.js';

const T = Date.UTC(2025, 0, 6, 10, 0, 0); // a Monday, 10:00 UTC
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

function timer(spec: Partial<Schedule>): Schedule {
  return { due: T, every: null, cron: null, tz: null, missed: 'coalesce', ...spec };
}

describe('planFiring', () => {
  it('a one-off fires its due once and has no next', () => {
    expect(planFiring(timer({}), T + 5)).toEqual({ occurrences: [{ scheduledFor: T, skipped: 0 }], nextDue: null });
  });

  describe('interval', () => {
    it('exactly at due: one occurrence, next = due + every', () => {
      expect(planFiring(timer({ every: 100 }), T)).toEqual({ occurrences: [{ scheduledFor: T, skipped: 0 }], nextDue: T + 100 });
    });

    it('1 ms before the next occurrence is still the same single occurrence', () => {
      expect(planFiring(timer({ every: 100 }), T + 99)).toEqual({ occurrences: [{ scheduledFor: T, skipped: 0 }], nextDue: T + 100 });
    });

    it('coalesce: the latest missed occurrence, counting the ones passed over', () => {
      expect(planFiring(timer({ every: 100 }), T + 350)).toEqual({ occurrences: [{ scheduledFor: T + 300, skipped: 3 }], nextDue: T + 400 });
    });

    it('each: every missed occurrence, oldest first', () => {
      expect(planFiring(timer({ every: 100, missed: 'each' }), T + 250)).toEqual({
        occurrences: [
          { scheduledFor: T, skipped: 0 },
          { scheduledFor: T + 100, skipped: 0 },
          { scheduledFor: T + 200, skipped: 0 },
        ],
        nextDue: T + 300,
      });
    });

    it('each: at most MAX_EACH_PER_PASS (1000) per pass, the next due being the first one left', () => {
      expect(MAX_EACH_PER_PASS).toBe(1_000);
      const firing = planFiring(timer({ every: 1, missed: 'each' }), T + 5_000);
      expect(firing.occurrences).toHaveLength(1_000);
      expect(firing.occurrences[999]).toEqual({ scheduledFor: T + 999, skipped: 0 });
      expect(firing.nextDue).toBe(T + 1_000);
      const exact = planFiring(timer({ every: 1, missed: 'each' }), T + 999);
      expect(exact.occurrences).toHaveLength(1_000);
      expect(exact.nextDue).toBe(T + 1_000);
    });
  });

  describe('cron', () => {
    it('coalesce: the latest match at or before now, counting the skipped', () => {
      expect(planFiring(timer({ cron: '0 * * * *' }), T + 3 * HOUR + 5)).toEqual({
        occurrences: [{ scheduledFor: T + 3 * HOUR, skipped: 3 }],
        nextDue: T + 4 * HOUR,
      });
    });

    it('each: one occurrence per match, capped at 1000', () => {
      const few = planFiring(timer({ cron: '0 * * * *', missed: 'each' }), T + 2 * HOUR);
      expect(few.occurrences.map((o) => o.scheduledFor)).toEqual([T, T + HOUR, T + 2 * HOUR]);
      expect(few.nextDue).toBe(T + 3 * HOUR);
      const many = planFiring(timer({ cron: '* * * * *', missed: 'each' }), T + 5_000 * MINUTE);
      expect(many.occurrences).toHaveLength(1_000);
      expect(many.nextDue).toBe(T + 1_000 * MINUTE);
    });

    it('a given due that is not a match fires at that due, then follows the pattern', () => {
      expect(planFiring(timer({ due: T + 7, cron: '0 * * * *' }), T + 7)).toEqual({
        occurrences: [{ scheduledFor: T + 7, skipped: 0 }],
        nextDue: T + HOUR,
      });
    });

    it('after more missed matches than it counts, it still lands on the latest match and the next one after now', () => {
      const now = T + 200_000 * SECOND; // 200,000 missed matches of an every-second pattern
      const firing = planFiring(timer({ cron: '* * * * * *' }), now);
      expect(firing.occurrences).toHaveLength(1);
      expect(firing.occurrences[0]!.scheduledFor).toBe(now);
      expect(firing.occurrences[0]!.skipped).toBe(1_000); // counted up to MAX_CRON_COUNT
      expect(firing.nextDue).toBe(now + SECOND);
      // So a second pass at the same instant finds nothing due.
      expect(firing.nextDue! > now).toBe(true);
    });

    it('when the first match past the counting limit is now itself, it is the one that fires, and the next due is after now', () => {
      const now = T + 1_000 * SECOND; // matches T … T+999 s are counted (the limit), the next one is now
      expect(planFiring(timer({ cron: '* * * * * *' }), now)).toEqual({ occurrences: [{ scheduledFor: now, skipped: 1_000 }], nextDue: now + SECOND });
    });

    it('far behind, in the hour a time zone repeats (clocks going back): the latest match by the pattern\'s own steps, and the next due after now', () => {
      // 01:20:13 EST on 2025-11-02, the second 1 a.m. in New York. croner steps through 1 a.m. once (EDT, 05:00-05:59 UTC) and then to
      // 02:00 EST; its previousRuns answers an hour early here (05:20 UTC), so the plan must step forward from what it says.
      const now = Date.UTC(2025, 10, 2, 6, 20, 13);
      const firing = planFiring(timer({ due: now - 2_000 * MINUTE, cron: '* * * * *', tz: 'America/New_York' }), now);
      expect(firing).toEqual({ occurrences: [{ scheduledFor: Date.UTC(2025, 10, 2, 5, 59), skipped: 1_000 }], nextDue: Date.UTC(2025, 10, 2, 7, 0) });
      expect(firing.nextDue! > now).toBe(true);
    });

    it('the same when now falls between two matches', () => {
      const now = T + 200_000 * SECOND + 400;
      const firing = planFiring(timer({ cron: '* * * * * *' }), now);
      expect(firing.occurrences[0]!.scheduledFor).toBe(now - 400);
      expect(firing.nextDue).toBe(now - 400 + SECOND);
    });

    it('ten years behind an every-second pattern: the latest match and the next, after bounded work (a jump, not 315 million steps)', { timeout: 10_000 }, () => {
      const now = T + 10 * 365 * 24 * HOUR + 250;
      const firing = planFiring(timer({ cron: '* * * * * *' }), now);
      expect(firing).toEqual({ occurrences: [{ scheduledFor: now - 250, skipped: 1_000 }], nextDue: now - 250 + SECOND });
    });

    it('matches that end while they are counted: the last one fires, counting the rest, and the timer retires', () => {
      const firing = planFiring(timer({ due: Date.UTC(2026, 0, 1), cron: '0 0 0 * * * 2026' }), Date.UTC(2030, 0, 1));
      expect(firing).toEqual({ occurrences: [{ scheduledFor: Date.UTC(2026, 11, 31), skipped: 364 }], nextDue: null });
    });

    it('matches that end past the counting limit: the last one fires and the timer retires', () => {
      const firing = planFiring(timer({ due: Date.UTC(2026, 0, 1), cron: '* * * * * * 2026' }), Date.UTC(2027, 5, 1));
      expect(firing).toEqual({ occurrences: [{ scheduledFor: Date.UTC(2026, 11, 31, 23, 59, 59), skipped: 1_000 }], nextDue: null });
    });

    it('each, when the matches end within the pass: every one of them, then retired', () => {
      const firing = planFiring(timer({ due: Date.UTC(2026, 11, 29), cron: '0 0 0 * * * 2026', missed: 'each' }), Date.UTC(2030, 0, 1));
      expect(firing).toEqual({
        occurrences: [Date.UTC(2026, 11, 29), Date.UTC(2026, 11, 30), Date.UTC(2026, 11, 31)].map((scheduledFor) => ({ scheduledFor, skipped: 0 })),
        nextDue: null,
      });
    });

    it('a pattern whose matches end (a year field) retires after its last one', () => {
      const firing = planFiring(timer({ due: Date.UTC(2026, 0, 1), cron: '0 0 0 1 1 * 2026' }), Date.UTC(2026, 5, 1));
      expect(firing).toEqual({ occurrences: [{ scheduledFor: Date.UTC(2026, 0, 1), skipped: 0 }], nextDue: null });
    });
  });
});

describe('nextCronTime', () => {
  it('is strictly after the given time', () => {
    expect(nextCronTime('*/5 * * * *', null, T)).toBe(T + 5 * MINUTE);
    expect(nextCronTime('*/5 * * * *', null, T - 1)).toBe(T);
    expect(nextCronTime('*/5 * * * *', null, T + 1)).toBe(T + 5 * MINUTE);
  });

  it('reads the pattern in the time zone', () => {
    expect(nextCronTime('0 9 * * *', 'Europe/Berlin', T)).toBe(Date.UTC(2025, 0, 7, 8, 0, 0));
    expect(nextCronTime('0 9 * * *', 'America/New_York', T)).toBe(Date.UTC(2025, 0, 6, 14, 0, 0));
    expect(nextCronTime('0 9 * * *', null, T)).toBe(Date.UTC(2025, 0, 7, 9, 0, 0));
  });

  it('is null for a pattern that never matches', () => {
    expect(nextCronTime('0 0 30 2 *', null, T)).toBeNull();
  });
});

describe('timerEventKey', () => {
  it("is ('timer', '<id>@<scheduledFor>')", () => {
    expect(timerEventKey('digest', 123)).toEqual({ source: 'timer', sourceId: 'digest@123' });
    expect(timerEventKey('digest', -5)).toEqual({ source: 'timer', sourceId: 'digest@-5' });
  });
});

describe('backoffMs (R4)', () => {
  it('is base * 2^(attempts-1), capped at max', () => {
    const b = { baseMs: 1_000, maxMs: 10_000 };
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffMs(a, b))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('stays finite and capped for absurd attempt counts', () => {
    expect(backoffMs(10_000, { baseMs: 1_000, maxMs: 600_000 })).toBe(600_000);
    expect(backoffMs(0, { baseMs: 1_000, maxMs: 600_000 })).toBe(1_000);
  });
});
