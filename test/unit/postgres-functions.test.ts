/**
 * The PostgreSQL store's server functions live once each in
 * src/store/postgres/functions and are applied only when a schema takes a
 * numbered step (src/store/postgres/functions/README.md). These checks keep
 * that arrangement from breaking quietly; they read files, no server.
 */
import { expect, it } from 'vitest';
import { functionFiles, functionsDigest, latestVersion, migrations } from '../../src/store/postgres/migrate.js';

/**
 * The function files as of the newest step. A function changed without a
 * new step would reach new schemas but never the ones already running, and
 * an older Vigil would not know to refuse them. After changing a file: add
 * a numbered migration (a comment alone will do), then put its number and
 * the digest this test prints here.
 */
const PINNED = { version: 22, digest: '917ee93f9c34d98102e533bd286a228d1141cf468220d9762ef169a358309a37' };

it('the function files are pinned to the newest migration: changing one needs a new step', () => {
  expect(
    { version: latestVersion(), digest: functionsDigest() },
    'a function file or the migrations changed: see PINNED in this file and src/store/postgres/functions/README.md',
  ).toEqual(PINNED);
});

it('every statement in a function file replaces a function, so it applies to a new schema and an old one alike', () => {
  for (const { name, sql } of functionFiles()) {
    const statements = sql
      .replace(/\$\$[\s\S]*?\$\$/g, '$$') // bodies may hold any SQL
      .replace(/--.*$/gm, '')
      .split(';')
      .map((statement) => statement.trim())
      .filter((statement) => statement !== '');
    expect(statements.length, name).toBeGreaterThan(0);
    for (const statement of statements) expect(statement, name).toMatch(/^CREATE OR REPLACE FUNCTION vigil_\w+\(/);
  }
});

it('no numbered migration defines a function: each has one definition, in functions/', () => {
  for (const { name, sql } of migrations()) expect(sql, name).not.toMatch(/CREATE\s+(OR\s+REPLACE\s+)?FUNCTION/i);
});
