/**
 * Each PostgreSQL test file gets a database of its own, created before its
 * tests and dropped after them, on the server the globalSetup provides
 * (test/setup/postgres.ts). Inside it, each store gets a fresh schema, so
 * tests never see each other's rows and run their migrations from scratch.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';

export interface TestDatabase {
  /** The test database's URL (valid once the file's beforeAll ran). */
  readonly url: string;
  /** A schema name no other store in this run uses. */
  freshSchema(label?: string): string;
  /** Raw SQL on the test database, for what the store API cannot do (kill a session). */
  query<T extends object = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

let schemas = 0;

export function useTestDatabase(label: string): TestDatabase {
  const serverUrl = inject('postgresUrl');
  const name = `vigil_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(serverUrl, name);
  let pool: pg.Pool | undefined;

  beforeAll(async () => {
    await createTestDatabase(serverUrl, name);
    pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on('error', () => undefined);
  });
  afterAll(async () => {
    await pool?.end();
    await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  return {
    url,
    freshSchema(schemaLabel = 's') {
      schemas += 1;
      return `${schemaLabel.toLowerCase()}_${schemas}_${randomBytes(3).toString('hex')}`;
    },
    async query<T extends object>(sql: string, params: unknown[] = []) {
      if (pool === undefined) throw new Error('the test database is not ready: call query() inside a test');
      return (await pool.query<T>(sql, params)).rows;
    },
  };
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * CREATE DATABASE on the test server, failing with what to fix: a role
 * without CREATEDB (a DATABASE_URL of one's own) is the usual cause, and
 * PostgreSQL's own "permission denied to create database" does not say
 * which role or why the tests need it.
 */
export async function createTestDatabase(serverUrl: string, name: string): Promise<void> {
  try {
    await admin(serverUrl, `CREATE DATABASE ${name}`);
  } catch (error) {
    const role = decodeURIComponent(new URL(serverUrl).username) || '(the default role)';
    const code = (error as { code?: string }).code;
    if (code === '42501') {
      throw new Error(
        `the PostgreSQL role ${role} may not create databases (it lacks CREATEDB): each PostgreSQL test file creates and drops its own database. ` +
          `Run ALTER ROLE ${role} CREATEDB as a superuser, or unset DATABASE_URL to let the tests start a throwaway server`,
        { cause: error },
      );
    }
    throw new Error(`could not create the test database ${name} as role ${role}: ${(error as Error).message}`, { cause: error });
  }
}

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
