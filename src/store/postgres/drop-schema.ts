/** Drops a schema and everything in it: what a throwaway store (../backends.ts) leaves behind. */
import pg from 'pg';
import { quoteIdent } from './connection.js';

export async function dropSchema(url: string, schema: string): Promise<void> {
  const target = new URL(url);
  target.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}
