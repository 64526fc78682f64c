/**
 * Both stores keep their schema as numbered .sql files (`001-name.sql`, …)
 * beside their code; `npm run build` copies them into dist/. This reads
 * them once, in order, and refuses a gap in the numbering.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir: URL): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}-.+\.sql$/.test(file))
    .sort()
    .map((file, index) => {
      const version = Number(file.slice(0, 3));
      if (version !== index + 1) throw new Error(`migration ${file} is out of sequence`);
      return { version, name: file, sql: readFileSync(new URL(file, dir), 'utf8') };
    });
}
