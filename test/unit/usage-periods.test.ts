/** periodStart (engine/usage.ts): where a person's local day or month begins, in any zone. */
import { expect, it } from 'vitest';
import { periodStart } from '../../src/store/index.js';

it('is local midnight of the day, or of the month\'s first day, at every offset; null for what is no day', () => {
  expect(periodStart('2026-12-01', 'UTC')).toBe(Date.UTC(2026, 11, 1));
  expect(periodStart('2026-12', 'UTC')).toBe(Date.UTC(2026, 11, 1));
  expect(periodStart('2026-07-04', 'America/New_York')).toBe(Date.UTC(2026, 6, 4, 4));
  expect(periodStart('2026-07-04', 'Asia/Kolkata')).toBe(Date.UTC(2026, 6, 3, 18, 30));
  expect(periodStart('2026-07-04', 'Pacific/Kiritimati')).toBe(Date.UTC(2026, 6, 3, 10));
  expect(periodStart('2026-07-04', 'Pacific/Pago_Pago')).toBe(Date.UTC(2026, 6, 4, 11));
  expect(periodStart('2026-02-30', 'UTC')).toBeNull();
  expect(periodStart('2026-13', 'UTC')).toBeNull();
  expect(periodStart('yesterday', 'UTC')).toBeNull();
});
