/**
 * A store to throw away after a test: SQLite in a fresh temporary directory
 * (removed on close), or, given a PostgreSQL URL, a fresh schema in that
 * database (dropped on close). Its clock is a fake one unless you pass your
 * own, so leases, retries, timers and pacing move only when the test says.
 */
import { createFakeClock, type FakeClock } from '../clock.js';
import type { Store, StoreOptions } from '../store/contract.js';
import { openStore, throwawayPlace } from '../store/index.js';

/** Where a throwaway store's fake clock starts: 2025-01-01T00:00:00Z. */
export const THROWAWAY_START = Date.UTC(2025, 0, 1);

export interface ThrowawayStoreOptions extends Omit<StoreOptions, 'clock' | 'schema'> {
  /** `postgres://...`: a fresh schema in that database instead of a SQLite directory. */
  url?: string;
  /** The store's clock (default: a fake clock at THROWAWAY_START). */
  clock?: FakeClock;
}

export interface ThrowawayStore {
  store: Store;
  /** The clock the store reads: advance it to pass leases, backoffs, timers and gaps. */
  clock: FakeClock;
  /** SQLite: the temporary directory (removed by close). */
  dir?: string;
  /** PostgreSQL: the schema (dropped by close). */
  schema?: string;
  /** Another store object on the same directory or schema: what a second process would open. Closed by close(). */
  open(more?: Omit<StoreOptions, 'clock' | 'schema'>): Promise<Store>;
  /** Closes every store opened here and removes the directory or drops the schema. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function throwawayStore(options: ThrowawayStoreOptions = {}): Promise<ThrowawayStore> {
  const { url, clock = createFakeClock(THROWAWAY_START), ...storeOptions } = options;
  const place = throwawayPlace(url);
  const opened: Store[] = [];
  const open = async (more: Omit<StoreOptions, 'clock' | 'schema'> = {}): Promise<Store> => {
    const store = await openStore(place.url, { ...storeOptions, ...more, clock: clock.now, ...place.options });
    opened.push(store);
    return store;
  };
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const results = await Promise.allSettled(opened.map((store) => store.close()));
      await place.remove();
      const failed = results.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    })();
    return closing;
  };
  let store: Store;
  try {
    store = await open();
  } catch (error) {
    await place.remove().catch(() => undefined);
    throw error;
  }
  return {
    store,
    clock,
    ...(place.dir === undefined ? {} : { dir: place.dir }),
    ...(place.schema === undefined ? {} : { schema: place.schema }),
    open,
    close,
    [Symbol.asyncDispose]: close,
  };
}
