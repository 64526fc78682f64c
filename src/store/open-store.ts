import { VigilError } from '../errors.js';
import { RuntimeEvents } from '../events.js';
import type { Store, StoreOptions } from './contract.js';
import { VigilStore } from './engine/store.js';

/**
 * Opens a store by URL:
 *   'sqlite:<dir>'   one SQLite file per inbox under <dir> (created if missing)
 *   'postgres://...' one PostgreSQL database for all inboxes
 *
 * Each backend, and its driver, is imported when a store of its kind is
 * opened: an application on PostgreSQL never loads better-sqlite3's native
 * module, and one on SQLite never loads pg.
 */
export async function openStore(url: string, options?: StoreOptions): Promise<Store> {
  if (typeof url !== 'string') throw new VigilError('invalid_store_url', 'openStore needs a URL string');
  const events = options?.events;
  if (events !== undefined && !(events instanceof RuntimeEvents)) {
    throw new VigilError('invalid_options', 'events must be a RuntimeEvents (new RuntimeEvents())');
  }
  if (url.startsWith('sqlite:')) {
    const dir = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (dir === '') throw new VigilError('invalid_store_url', "a SQLite store URL names a directory: 'sqlite:./data'");
    const { SqliteStore } = await import('./sqlite/sqlite-store.js');
    return new VigilStore(new SqliteStore(dir, options), events);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    return new VigilStore(await openPostgresStore(url, options), events);
  }
  throw new VigilError('invalid_store_url', `unknown store URL ${JSON.stringify(url)}: use 'sqlite:<dir>' or 'postgres://...'`);
}
