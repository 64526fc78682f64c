/**
 * The one door to the backends: opening a store of each kind, migrating
 * one, and a throwaway place for a test's store. Nothing outside
 * src/store/ names a backend (test/architecture checks it); a new backend
 * adds its scheme to store-url.ts and a case to each function here.
 *
 * Each backend, and its driver, is imported when a store of its kind is
 * opened: an application on PostgreSQL never loads better-sqlite3's native
 * module, and one on SQLite never loads pg.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VigilError } from '../errors.js';
import { RuntimeEvents } from '../events.js';
import type { Store, StoreOptions } from './contract.js';
import { VigilStore } from './engine/store.js';
import { parseStoreUrl, sqliteStoreUrl } from './store-url.js';

/**
 * Opens a store by URL (store-url.ts):
 *   'sqlite:<dir>'   one SQLite file per inbox under <dir> (created if missing)
 *   'postgres://...' one PostgreSQL database for all inboxes
 */
export async function openStore(url: string, options?: StoreOptions): Promise<Store> {
  if (typeof url !== 'string') throw new VigilError('invalid_store_url', 'openStore needs a URL string');
  const events = options?.events;
  if (events !== undefined && !(events instanceof RuntimeEvents)) {
    throw new VigilError('invalid_options', 'events must be a RuntimeEvents (new RuntimeEvents())');
  }
  const location = parseStoreUrl(url);
  if (location.backend === 'sqlite') {
    const { SqliteStore } = await import('./sqlite/sqlite-store.js');
    return new VigilStore(new SqliteStore(location.dir, options), events);
  }
  const { openPostgresStore } = await import('./postgres/postgres-store.js');
  return new VigilStore(await openPostgresStore(location.url, options), events);
}

export interface MigrateReport {
  /** The schema version the store is at now: the latest this code knows. */
  version: number;
  /** SQLite: the inbox files opened (and so migrated); null for a store in one database. */
  inboxFiles: number | null;
}

/**
 * Opens the store so that its migrations run, and says which schema version
 * it is at. On SQLite each inbox is its own file with its own version, so
 * every existing inbox file is opened (and migrated) too; otherwise they
 * would migrate one by one as the service first touches them.
 */
export async function migrateStore(url: string, options?: StoreOptions): Promise<MigrateReport> {
  const location = parseStoreUrl(url);
  const store = await openStore(url, options);
  try {
    if (location.backend === 'sqlite') {
      const ids = await store.inboxes();
      for (const id of ids) await store.inbox(id).stats();
      const { INBOX_SCHEMA } = await import('./sqlite/migrate.js');
      return { version: INBOX_SCHEMA.latestVersion(), inboxFiles: ids.length };
    }
    const { latestVersion } = await import('./postgres/migrate.js');
    return { version: latestVersion(), inboxFiles: null };
  } finally {
    await store.close();
  }
}

/** Where a throwaway store lives, and how to remove it with everything in it. */
export interface ThrowawayPlace {
  url: string;
  /** Options every store opened there needs (PostgreSQL: its schema). */
  options: Pick<StoreOptions, 'schema'>;
  /** SQLite: the temporary directory. */
  dir?: string;
  /** PostgreSQL: the schema. */
  schema?: string;
  remove(): Promise<void>;
}

/**
 * A fresh place for a store nobody else uses: SQLite in a new temporary
 * directory, or, given a PostgreSQL URL, a new schema in that database.
 */
export function throwawayPlace(url?: string): ThrowawayPlace {
  if (url === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-test-'));
    return {
      url: sqliteStoreUrl(dir),
      options: {},
      dir,
      async remove() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (parseStoreUrl(url).backend !== 'postgres') {
    throw new VigilError('invalid_store_url', 'a throwaway store takes a postgres:// URL (or no URL for SQLite in a temporary directory)');
  }
  // Lower case, under the store's 56 characters (postgres/connection.ts).
  const schema = `vigil_test_${randomBytes(6).toString('hex')}`;
  return {
    url,
    options: { schema },
    schema,
    async remove() {
      const { dropSchema } = await import('./postgres/drop-schema.js');
      await dropSchema(url, schema);
    },
  };
}
