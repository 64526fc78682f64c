/**
 * Both stores keep their schema as numbered .sql files (`001-name.sql`, …)
 * beside their code; `npm run build` copies them into dist/. This reads
 * them once, in order, and refuses a gap in the numbering. readSqlFiles
 * also serves the PostgreSQL store's function files (postgres/functions/).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir: URL): Migration[] {
  return readSqlFiles(dir, /^\d{3}-.+\.sql$/).map(({ name, sql }, index) => {
    const version = Number(name.slice(0, 3));
    if (version !== index + 1) throw new Error(`migration ${name} is out of sequence`);
    return { version, name, sql };
  });
}

/** The .sql files in `dir` whose names match, in name order, with their text. */
export function readSqlFiles(dir: URL, names = /\.sql$/): { name: string; sql: string }[] {
  return readdirSync(dir)
    .filter((file) => names.test(file))
    .sort()
    .map((name) => ({ name, sql: readFileSync(new URL(name, dir), 'utf8') }));
}
