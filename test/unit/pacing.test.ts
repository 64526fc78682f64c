/**
 * pacing.ts on its own: whether quiet hours hold an inbox's messages at an
 * instant and until when, and which local day a send counts against. The
 * same rules through each store are in test/conformance/r9-pacing.ts; these
 * pin the edges a store test reaches only by luck (found by mutation
 * testing, TESTING.md).
 */
import { Cron } from 'croner';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cached, localDay, MAX_CACHED, nextLocalDay, quietState } from '../../src/store/pacing.js';

const at = (iso: string): number => Date.parse(iso);

describe('quietState', () => {
  const night = { from: '22:00', to: '07:00', timeZone: 'UTC' };

  it('quiet from `from` (inclusive) to `to` (exclusive), across midnight, ending at the next `to`', () => {
    expect(quietState(night, at('2026-01-15T21:59:59.999Z'))).toEqual({ quiet: false, endsAt: null });
    expect(quietState(night, at('2026-01-15T22:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-01-16T07:00:00Z') });
    expect(quietState(night, at('2026-01-16T03:00:00Z'))).toEqual({ quiet: true, endsAt: at('2026-01-16T07:00:00Z') });
    expect(quietState(night, at('2026-01-16T06:59:59.999Z'))).toEqual({ quiet: true, endsAt: at('2026-01-16T07:00:00Z') });
    expect(quietState(night, at('2026-01-16T07:00:00Z'))).toEqual({ quiet: false, endsAt: null });
  });

  it('within one day too: 12:00 to 13:00', () => {
    const lunch = { from: '12:00', to: '13:00', timeZone: 'UTC' };
    expect(quietState(lunch, at('2026-01-15T11:59:59.999Z')).quiet).toBe(false);
    expect(quietState(lunch, at('2026-01-15T12:30:00Z'))).toEqual({ quiet: true, endsAt: at('2026-01-15T13:00:00Z') });
    expect(quietState(lunch, at('2026-01-15T13:00:00Z')).quiet).toBe(false);
  });

  it('on the spring DST night both ends of 02:30 to 03:30 (Berlin) fall on 03:30 CEST: quiet hours that last nothing hold nothing', () => {
    const hours = { from: '02:30', to: '03:30', timeZone: 'Europe/Berlin' };
    // 02:30 does not exist on 2026-03-29: it falls the gap's length later, on 03:30 CEST (01:30Z), where `to` is too.
    for (const now of ['2026-03-29T01:00:00Z', '2026-03-29T01:30:00Z', '2026-03-29T01:45:00Z', '2026-03-29T12:00:00Z']) {
      expect(quietState(hours, at(now))).toEqual({ quiet: false, endsAt: null });
    }
    // The next night has its hour again: 02:30 CEST is 00:30Z.
    expect(quietState(hours, at('2026-03-30T00:30:00Z'))).toEqual({ quiet: true, endsAt: at('2026-03-30T01:30:00Z') });
  });

  it('the same answers asked first inside the spring gap, with nothing kept: croner then puts both ends on the same instant, still not quiet', () => {
    // Brussels has Berlin's rules; no other test asks about it, so both times are stepped afresh from two days back.
    const hours = { from: '02:30', to: '03:30', timeZone: 'Europe/Brussels' };
    expect(quietState(hours, at('2026-03-29T01:45:00Z'))).toEqual({ quiet: false, endsAt: null });
  });

  it("at the end of croner's calendar (year 3000) it still answers: quiet with no known end, then never quiet", () => {
    // The last 22:00 before the year 3000 has no 07:00 after it that croner computes.
    expect(quietState(night, at('2999-12-31T23:00:00Z'))).toEqual({ quiet: true, endsAt: null });
    expect(quietState(night, at('2999-12-31T12:00:00Z'))).toEqual({ quiet: false, endsAt: null });
    expect(quietState(night, at('3000-01-05T00:00:00Z'))).toEqual({ quiet: false, endsAt: null });
  });
});

describe('quietState past the end of croner\'s calendar, with nothing kept', () => {
  it('neither end has occurred in the last two days: not quiet', () => {
    expect(quietState({ from: '22:00', to: '07:00', timeZone: 'Etc/UTC' }, at('3000-01-05T00:00:00Z'))).toEqual({ quiet: false, endsAt: null });
  });
});

describe('localDay and nextLocalDay', () => {
  it('the calendar day in the time zone, as YYYY-MM-DD', () => {
    expect(localDay(at('2026-01-16T04:59:59.999Z'), 'America/New_York')).toBe('2026-01-15');
    expect(localDay(at('2026-01-16T05:00:00Z'), 'America/New_York')).toBe('2026-01-16');
    expect(localDay(at('2026-01-15T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-01-16');
    expect(localDay(at('2026-01-15T23:30:00Z'), 'UTC')).toBe('2026-01-15');
  });

  it("the next day's first instant: local midnight, or where midnight does not exist (Santiago, spring), 01:00", () => {
    expect(nextLocalDay(at('2026-01-15T12:00:00Z'), 'UTC')).toBe(at('2026-01-16T00:00:00Z'));
    expect(nextLocalDay(at('2026-01-15T12:00:00Z'), 'America/New_York')).toBe(at('2026-01-16T05:00:00Z'));
    // 2026-09-06 00:00 -04 does not exist in Chile: the day starts at 01:00 -03, 04:00Z.
    const start = nextLocalDay(at('2026-09-05T12:00:00Z'), 'America/Santiago');
    expect(start).toBe(at('2026-09-06T04:00:00Z'));
    expect([localDay(start - 1, 'America/Santiago'), localDay(start, 'America/Santiago')]).toEqual(['2026-09-05', '2026-09-06']);
  });
});

describe('what pacing keeps between calls', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('an answer holds from the latest occurrence up to (not including) the next: croner is stepped only outside it', () => {
    // A time and zone no other test uses, so nothing is kept for it yet.
    const hours = { from: '21:17', to: '06:43', timeZone: 'Asia/Kolkata' };
    const steps = vi.spyOn(Cron.prototype, 'nextRun');
    const stepped = (now: string): number => {
      const before = steps.mock.calls.length;
      quietState(hours, at(now));
      return steps.mock.calls.length - before;
    };
    // 21:17 IST is 15:47Z, 06:43 IST is 01:13Z. At 12:00Z the latest `to` is 01:13Z, the next `from` 15:47Z.
    expect(stepped('2026-01-15T12:00:00Z')).toBeGreaterThan(0);
    // The same instant, an earlier one back to the latest `to` exactly, a later one up to the next `from`: what was kept.
    for (const now of ['2026-01-15T12:00:00Z', '2026-01-15T01:13:00Z', '2026-01-15T15:46:59.999Z']) expect(stepped(now)).toBe(0);
    expect(quietState(hours, at('2026-01-15T01:13:00Z'))).toEqual({ quiet: false, endsAt: null });
    // At the next `from` the kept answer no longer holds; the new one holds from that `from` itself to the next `to`.
    expect(stepped('2026-01-15T15:47:00Z')).toBeGreaterThan(0);
    for (const now of ['2026-01-15T15:47:00Z', '2026-01-15T20:00:00Z', '2026-01-16T01:12:59.999Z']) expect(stepped(now)).toBe(0);
    expect(quietState(hours, at('2026-01-15T15:47:00Z'))).toEqual({ quiet: true, endsAt: at('2026-01-16T01:13:00Z') });
    expect(stepped('2026-01-16T01:13:00Z')).toBeGreaterThan(0);
    expect(quietState(hours, at('2026-01-16T01:13:00Z'))).toEqual({ quiet: false, endsAt: null });
  });

  it('cached: a value is made once per key and kept', () => {
    const cache = new Map<string, number>();
    let made = 0;
    expect(cached(cache, 'a', () => ++made)).toBe(1);
    expect(cached(cache, 'a', () => ++made)).toBe(1);
    expect(cached(cache, 'b', () => ++made)).toBe(2);
    expect(made).toBe(2);
    expect([...cache]).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('cached: bounded at MAX_CACHED entries, past which it starts over', () => {
    const cache = new Map<string, number>();
    for (let n = 0; n < MAX_CACHED; n++) cached(cache, `k${n}`, () => n);
    expect(cache.size).toBe(MAX_CACHED);
    expect(cached(cache, 'one more', () => -1)).toBe(-1);
    expect([...cache]).toEqual([['one more', -1]]);
  });
});
