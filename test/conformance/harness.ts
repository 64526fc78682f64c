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
}

/** The article's start time: 1,000,000 seconds after the epoch. */
export const T0 = 1_000_000_000;

export interface Fixture {
  clock: FakeClock;
  store: Store;
  reopen(options?: StoreOptions): Promise<Store>;
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
    const { store, reopen } = await target.open({ clock: clock.now, ...options });
    opened.push(store);
    return {
      clock,
      store,
      async reopen(more = {}) {
        const other = await reopen({ clock: clock.now, ...options, ...more });
        opened.push(other);
        return other;
      },
    };
  };
}
