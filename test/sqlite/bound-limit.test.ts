/**
 * Every LIMIT the SQLite store binds at run time goes through boundLimit():
 * SQLite reads a bare `LIMIT ?` while planning and compiles the statement
 * again at each new binding, so a cached statement would pay a prepare on
 * every call (bound-limit.ts). The rows a limit lets through are the
 * conformance suite's; this guards the form.
 */
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boundLimit } from '../../src/store/sqlite/bound-limit.js';

const SQLITE_SOURCES = join(import.meta.dirname, '../../src/store/sqlite');
/** `?`, `?1`, `@name`, `:name` or `$name`; not `${` (a value written into the SQL). */
const BARE_BOUND_LIMIT = /\bLIMIT\s+(?:[?@:]|\$(?!\{))/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|sql)$/.test(entry.name) && entry.name !== 'bound-limit.ts')
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('bound LIMITs in the SQLite store', () => {
  it('no statement binds a bare LIMIT parameter', () => {
    const found = sources(SQLITE_SOURCES).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(BARE_BOUND_LIMIT)].map((match) => `${file}: ${match[0]}`),
    );
    expect(found).toEqual([]);
  });

  it('limits the rows by the value bound, by position or by name', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY); INSERT INTO t (n) VALUES (1), (2), (3), (4)');
      const byPosition = db.prepare(`SELECT n FROM t ORDER BY n ${boundLimit('?')}`).pluck();
      const byName = db.prepare(`SELECT n FROM t ORDER BY n ${boundLimit('@limit')}`).pluck();
      expect(byPosition.all(2)).toEqual([1, 2]);
      expect(byPosition.all(3)).toEqual([1, 2, 3]);
      expect(byName.all({ limit: 1 })).toEqual([1]);
      expect(byName.all({ limit: 0 })).toEqual([]);
    } finally {
      db.close();
    }
  });
});
