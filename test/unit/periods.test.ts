import { describe, expect, it } from 'vitest';
import { localPeriods, startOfLocalDay, startOfLocalMonth, startOfNextLocalDay, startOfNextLocalMonth } from '../../src/store/periods.js';

const at = (iso: string): number => Date.parse(iso);

describe('local days and months (periods.ts)', () => {
  it('a Berlin day that loses an hour to DST is 23 hours long and starts at local midnight', () => {
    // 2026-03-29: clocks go from 02:00 CET to 03:00 CEST.
    const noon = at('2026-03-29T10:00:00Z');
    expect(startOfLocalDay(noon, 'Europe/Berlin')).toBe(at('2026-03-28T23:00:00Z'));
    expect(startOfNextLocalDay(noon, 'Europe/Berlin')).toBe(at('2026-03-29T22:00:00Z'));
  });

  it('a New York day that gains an hour is 25 hours long', () => {
    // 2026-11-01: clocks go from 02:00 EDT back to 01:00 EST.
    const noon = at('2026-11-01T17:00:00Z');
    expect(startOfLocalDay(noon, 'America/New_York')).toBe(at('2026-11-01T04:00:00Z'));
    expect(startOfNextLocalDay(noon, 'America/New_York')).toBe(at('2026-11-02T05:00:00Z'));
  });

  it('a day start is its own day start, and the instant before it belongs to the day before', () => {
    const start = at('2026-03-29T22:00:00Z');
    expect(startOfLocalDay(start, 'Europe/Berlin')).toBe(start);
    expect(startOfLocalDay(start - 1, 'Europe/Berlin')).toBe(at('2026-03-28T23:00:00Z'));
  });

  it('months start at local midnight whatever offset they have (Berlin and New York across DST)', () => {
    const march = at('2026-03-30T12:00:00Z');
    expect(startOfLocalMonth(march, 'Europe/Berlin')).toBe(at('2026-02-28T23:00:00Z'));
    expect(startOfNextLocalMonth(march, 'Europe/Berlin')).toBe(at('2026-03-31T22:00:00Z'));
    const november = at('2026-11-15T12:00:00Z');
    expect(startOfLocalMonth(november, 'America/New_York')).toBe(at('2026-11-01T04:00:00Z'));
    expect(startOfNextLocalMonth(november, 'America/New_York')).toBe(at('2026-12-01T05:00:00Z'));
    expect(startOfLocalMonth(at('2026-12-31T23:30:00Z'), 'UTC')).toBe(at('2026-12-01T00:00:00Z'));
    expect(startOfNextLocalMonth(at('2026-12-31T23:30:00Z'), 'UTC')).toBe(at('2027-01-01T00:00:00Z'));
    expect(startOfNextLocalMonth(at('2026-02-01T00:00:00Z'), 'UTC')).toBe(at('2026-03-01T00:00:00Z'));
  });
});

describe('localPeriods (kept per zone for the day)', () => {
  it('gives the same bounds as the functions, and new ones once the day is over', () => {
    const noon = Date.parse('2026-03-29T10:00:00Z');
    expect(localPeriods(noon, 'Europe/Berlin')).toEqual({
      dayStart: startOfLocalDay(noon, 'Europe/Berlin'),
      nextDayStart: startOfNextLocalDay(noon, 'Europe/Berlin'),
      monthStart: startOfLocalMonth(noon, 'Europe/Berlin'),
      nextMonthStart: startOfNextLocalMonth(noon, 'Europe/Berlin'),
    });
    const next = localPeriods(Date.parse('2026-03-29T22:00:00Z'), 'Europe/Berlin');
    expect(next.dayStart).toBe(Date.parse('2026-03-29T22:00:00Z'));
    expect(localPeriods(Date.parse('2026-03-29T21:59:59.999Z'), 'Europe/Berlin').dayStart).toBe(Date.parse('2026-03-28T23:00:00Z'));
  });
});
