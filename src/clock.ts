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

/** Where a fake clock's `now` keeps the cell its time lives in (sharedTimeOf). */
const SHARED_TIME = Symbol('vigil.sharedTime');

/**
 * The time lives in shared memory, not in a closure, so that another thread
 * can read the same clock: the SQLite store's writer thread (writerThread)
 * reads "now" inside its own transactions, after the write lock, as the
 * store does on the main thread. A closure could only be called here.
 */
export function createFakeClock(start = 0): FakeClock {
  const cell = new BigInt64Array(new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT));
  const write = (ms: number): void => {
    Atomics.store(cell, 0, BigInt(checkTime(ms)));
  };
  write(start);
  const now = clockFromSharedTime(cell);
  Object.defineProperty(now, SHARED_TIME, { value: cell });
  return {
    now,
    set: write,
    advance(ms) {
      write(now() + ms);
    },
  };
}

/** The shared cell a createFakeClock() clock reads, for another thread to read it too; undefined for any other clock. */
export function sharedTimeOf(clock: Clock): BigInt64Array | undefined {
  return (clock as { [SHARED_TIME]?: BigInt64Array })[SHARED_TIME];
}

/** A clock that reads a cell sharedTimeOf() gave: the same time as the fake clock it came from, from any thread. */
export function clockFromSharedTime(cell: BigInt64Array): Clock {
  return () => Number(Atomics.load(cell, 0));
}

function checkTime(ms: number): number {
  if (!Number.isSafeInteger(ms)) {
    throw new VigilError('invalid_argument', `fake clock time must be integer milliseconds, got ${String(ms)}`);
  }
  return ms;
}
