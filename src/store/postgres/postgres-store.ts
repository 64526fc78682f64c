import { VigilError } from '../../errors.js';
import type { Store, StoreOptions } from '../contract.js';

// Placeholder until the PostgreSQL store lands (issue 3).
export async function openPostgresStore(_url: string, _options?: StoreOptions): Promise<Store> {
  throw new VigilError('invalid_store_url', 'the PostgreSQL store is not implemented yet');
}
