/**
 * Where a run keeps its store and its journals: a temporary directory
 * (the SQLite store inside it), plus, on PostgreSQL, a fresh schema in the
 * given database. remove() deletes both; a failed run keeps them to look at.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ChaosConfig } from './config.js';

export interface Place {
  storeUrl: string;
  schema: string | undefined;
  dir: string;
  journalDir: string;
  remove(): Promise<void>;
}

export function makePlace(config: ChaosConfig): Place {
  const dir = mkdtempSync(join(tmpdir(), `vigil-chaos-${config.store}-`));
  const journalDir = join(dir, 'journal');
  mkdirSync(journalDir);
  if (config.store === 'sqlite') {
    return { storeUrl: `sqlite:${join(dir, 'store')}`, schema: undefined, dir, journalDir, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (config.url === undefined) throw new Error('a PostgreSQL run needs a URL');
  const url = config.url;
  const schema = config.schema ?? `chaos_${randomBytes(5).toString('hex')}`;
  return {
    storeUrl: url,
    schema,
    dir,
    journalDir,
    async remove() {
      rmSync(dir, { recursive: true, force: true });
      if (config.schema !== undefined) return;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
