/**
 * The PostgreSQL tests' own setup, when DATABASE_URL names a role that may
 * not create databases: the failure names the role, the missing CREATEDB
 * and the fix, instead of PostgreSQL's bare "permission denied".
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, expect, inject, it } from 'vitest';
import { createTestDatabase } from './test-database.js';

const serverUrl = inject('postgresUrl');
const role = `vigil_nocreatedb_${randomBytes(3).toString('hex')}`;

async function asAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await asAdmin(`DROP ROLE IF EXISTS ${role}`);
});

it('a role without CREATEDB: the setup says which role lacks it and how to fix it', async () => {
  await asAdmin(`CREATE ROLE ${role} LOGIN PASSWORD 'pw' NOCREATEDB`);
  const url = new URL(serverUrl);
  url.username = role;
  url.password = 'pw';
  await expect(createTestDatabase(url.toString(), `vigil_never_${randomBytes(3).toString('hex')}`)).rejects.toThrow(
    `the PostgreSQL role ${role} may not create databases (it lacks CREATEDB): each PostgreSQL test file creates and drops its own database. ` +
      `Run ALTER ROLE ${role} CREATEDB as a superuser, or unset DATABASE_URL to let the tests start a throwaway server`,
  );
});
