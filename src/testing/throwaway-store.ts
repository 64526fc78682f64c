/**
 * A store to throw away after a test: SQLite in a fresh temporary directory
 * (removed on close), or, given a PostgreSQL URL, a fresh schema in that
 * database (dropped on close). Its clock is a fake one unless you pass your
 * own, so leases, retries, timers and pacing move only when the test says.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeClock, type FakeClock } from '../clock.js';
import { VigilError } from '../errors.js';
import type { Store, StoreOptions } from '../store/contract.js';
import { openStore } from '../store/open-store.js';

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
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) {
    throw new VigilError('invalid_store_url', 'throwawayStore takes a postgres:// URL (or no URL for SQLite in a temporary directory)');
  }
  const place = url === undefined ? sqlitePlace() : postgresPlace(url);
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

interface Place {
  url: string;
  options: Pick<StoreOptions, 'schema'>;
  dir?: string;
  schema?: string;
  remove(): Promise<void>;
}

function sqlitePlace(): Place {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-test-'));
  return {
    url: `sqlite:${dir}`,
    options: {},
    dir,
    async remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresPlace(url: string): Place {
  // Lower case, under the store's 56 characters: see src/store/postgres/connection.ts.
  const schema = `vigil_test_${randomBytes(6).toString('hex')}`;
  return {
    url,
    options: { schema },
    schema,
    async remove() {
      // pg is loaded only here, as openStore does: a SQLite user never needs it.
      const { default: pg } = await import('pg');
      const target = new URL(url);
      target.searchParams.delete('schema');
      const client = new pg.Client({ connectionString: target.toString() });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
