/**
 * The conformance suite's contract with a backend. Each rule file exports
 * one function that registers a `describe` for its rule; `runStoreConformance`
 * runs them all against one backend. test/conformance/sqlite.test.ts and
 * postgres.test.ts call it, so both stores pass exactly the same tests.
 */
import { afterEach } from 'vitest';
import { createFakeClock, type FakeClock, type Store, type StoreOptions } from '../../src/index.js';

export interface StoreTarget {
  name: string;
  /** Opens a fresh, empty store of its own (its own directory or schema). */
  open(options?: StoreOptions): Promise<OpenedStore>;
  /** Backend features a rule may depend on. */
  capabilities: { databaseClock: boolean };
}

export interface OpenedStore {
  store: Store;
  /** Opens a second, independent handle on the same data (another process or machine's view). */
  reopen(options?: StoreOptions): Promise<Store>;
  /**
   * Writes `value` (an integer's decimal text, up to 2^63-1) straight into
   * one column of an inbox's rows by SQL, as an older version or a hand edit
   * could: no rule checks it. For the reads that must survive a row out of
   * range.
   */
  rawWrite(inboxId: string, column: RawColumn, value: string): Promise<void>;
}

/** The columns rawWrite can set, named alike on every backend. */
export type RawColumn = 'lease.gen' | 'timers.due';

/** The article's start time: 1,000,000 seconds after the epoch. */
export const T0 = 1_000_000_000;

export interface Fixture {
  clock: FakeClock;
  store: Store;
  reopen(options?: StoreOptions): Promise<Store>;
  rawWrite: OpenedStore['rawWrite'];
}

/**
 * A store on a fake clock, closed after the test. Every time rule is tested
 * by moving this clock, never by sleeping.
 */
export function useStore(target: StoreTarget): (options?: StoreOptions) => Promise<Fixture> {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  return async (options = {}) => {
    const clock = createFakeClock(T0);
    const { store, reopen, rawWrite } = await target.open({ clock: clock.now, ...options });
    opened.push(store);
    return {
      clock,
      store,
      rawWrite,
      async reopen(more = {}) {
        const other = await reopen({ clock: clock.now, ...options, ...more });
        opened.push(other);
        return other;
      },
    };
  };
}
