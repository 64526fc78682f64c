import { VigilError } from '../errors.js';
import type { Store, StoreOptions } from './contract.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

/**
 * Opens a store by URL:
 *   'sqlite:<dir>'   one SQLite file per inbox under <dir> (created if missing)
 *   'postgres://...' one PostgreSQL database for all inboxes
 */
export async function openStore(url: string, options?: StoreOptions): Promise<Store> {
  if (typeof url !== 'string') throw new VigilError('invalid_store_url', 'openStore needs a URL string');
  if (url.startsWith('sqlite:')) {
    const dir = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (dir === '') throw new VigilError('invalid_store_url', "a SQLite store URL names a directory: 'sqlite:./data'");
    return new SqliteStore(dir, options);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { openPostgresStore } = await import('./postgres/postgres-store.js');
    return openPostgresStore(url, options);
  }
  throw new VigilError('invalid_store_url', `unknown store URL ${JSON.stringify(url)}: use 'sqlite:<dir>' or 'postgres://...'`);
}
