/**
 * Versioned schema for the PostgreSQL store. Numbered .sql files in
 * ./migrations are applied in order, all in one transaction, under an
 * advisory lock per schema, and recorded in the `vigil_migrations` ledger:
 * two machines starting at once cannot both apply a step, and a crash half
 * way leaves the schema as it was (PostgreSQL's DDL is transactional).
 *
 * The server-side functions are not in the numbered steps: ./functions
 * holds each one's current definition once (its README.md says why and how
 * to change one), applied in the same transaction after the steps whenever
 * a schema is created or upgraded.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { VigilError } from '../../errors.js';
import { readMigrations, readSqlFiles, type Migration } from '../migration-files.js';
import { quoteIdent } from './connection.js';
import { withClient } from './inbox-tx.js';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const FUNCTIONS_DIR = new URL('./functions/', import.meta.url);

/** Advisory lock class for "migrating a Vigil schema" ('VIGI'); the object is the schema's hash. */
const LOCK_CLASS = 0x56494749;

const LEDGER = `
CREATE TABLE IF NOT EXISTS vigil_migrations (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
)`;

let cached: Migration[] | undefined;

export function migrations(): Migration[] {
  cached ??= readMigrations(MIGRATIONS_DIR);
  return cached;
}

export function latestVersion(): number {
  return migrations().length;
}

export interface FunctionFile {
  name: string;
  sql: string;
}

let cachedFunctions: FunctionFile[] | undefined;

/** The functions' definitions, in name order (a LANGUAGE sql function must sort after one it calls). */
export function functionFiles(): FunctionFile[] {
  cachedFunctions ??= readSqlFiles(FUNCTIONS_DIR);
  return cachedFunctions;
}

/** One digest of every function file's name and text: what test/unit/postgres-functions.test.ts pins to a schema version. */
export function functionsDigest(): string {
  const hash = createHash('sha256');
  for (const { name, sql } of functionFiles()) hash.update(`${name}\0${sql}\0`);
  return hash.digest('hex');
}

/** The schema's version: 0 when the schema or its ledger does not exist yet. */
export async function schemaVersion(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ exists: boolean }>(
    "SELECT to_regclass('vigil_migrations') IS NOT NULL AS exists",
  );
  if (rows[0]?.exists !== true) return 0;
  const version = await client.query<{ version: number }>('SELECT coalesce(max(version), 0)::integer AS version FROM vigil_migrations');
  return version.rows[0]?.version ?? 0;
}

/** Brings `schema` up to the newest version this code knows; refuses a newer one. */
export async function migrate(pool: pg.Pool, schema: string): Promise<void> {
  const check = (version: number): void => {
    if (version > latestVersion()) {
      throw new VigilError(
        'schema_too_new',
        `PostgreSQL schema ${JSON.stringify(schema)} has Vigil schema version ${version}, but this Vigil knows only up to ${latestVersion()}: upgrade Vigil before opening it`,
      );
    }
  };
  await withClient(pool, async (client) => {
    // Fast path, no lock: an up-to-date schema is the common case at startup.
    const seen = await schemaVersion(client);
    check(seen);
    if (seen === latestVersion()) return;
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      // The connection's search_path named the schema before it existed; say it again.
      await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
      await client.query(LEDGER);
      // Re-read under the lock: another machine may have migrated meanwhile.
      const version = await schemaVersion(client);
      check(version);
      const pending = migrations().slice(version);
      for (const step of pending) {
        await client.query(step.sql);
        await client.query('INSERT INTO vigil_migrations (version, name) VALUES ($1, $2)', [step.version, step.name]);
      }
      // With the steps, and only then: a function changes with a new step (functions/README.md).
      if (pending.length > 0) for (const fn of functionFiles()) await client.query(fn.sql);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
