import { VigilError } from './errors.js';

/** The only source of "now" in Vigil: integer milliseconds since the epoch. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

/**
 * Reads a clock and insists on an integer. A fractional "now" would make
 * timer keys like `digest@1700000000000.5` that a replay can never match.
 */
export function readClock(clock: Clock): number {
  const now = clock();
  if (!Number.isSafeInteger(now)) {
    throw new VigilError('invalid_argument', `clock returned ${String(now)}; it must return integer milliseconds`);
  }
  return now;
}

/** A clock that moves only when told to: for tests and scenario scripts. */
export interface FakeClock {
  readonly now: Clock;
  set(ms: number): void;
  advance(ms: number): void;
}

export function createFakeClock(start = 0): FakeClock {
  let current = checkTime(start);
  return {
    now: () => current,
    set(ms) {
      current = checkTime(ms);
    },
    advance(ms) {
      current = checkTime(current + ms);
    },
  };
}

function checkTime(ms: number): number {
  if (!Number.isSafeInteger(ms)) {
    throw new VigilError('invalid_argument', `fake clock time must be integer milliseconds, got ${String(ms)}`);
  }
  return ms;
}
