/**
 * Versioned schema for one inbox file. The version lives in
 * `PRAGMA user_version`; numbered .sql files in ./migrations are applied in
 * order inside one BEGIN IMMEDIATE, so two processes opening a new file at
 * once cannot both apply the same step.
 */
import type { Database } from 'better-sqlite3';
import { VigilError } from '../../errors.js';
import { readMigrations, type Migration } from '../migration-files.js';


const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

let cached: Migration[] | undefined;

export function migrations(): Migration[] {
  cached ??= readMigrations(MIGRATIONS_DIR);
  return cached;
}

export function latestVersion(): number {
  return migrations().length;
}

/** Brings the file up to `target` (default: the newest this code knows). */
export function migrate(db: Database, file: string, target = latestVersion()): void {
  const check = (version: number): void => {
    if (version > latestVersion()) {
      throw new VigilError(
        'schema_too_new',
        `${file} has schema version ${version}, but this Vigil knows only up to ${latestVersion()}: upgrade Vigil before opening it`,
      );
    }
  };
  const current = db.pragma('user_version', { simple: true }) as number;
  check(current);
  if (current >= target) return;
  db.transaction(() => {
    // Re-read under the write lock: another process may have migrated meanwhile.
    const version = db.pragma('user_version', { simple: true }) as number;
    check(version);
    for (const step of migrations().slice(version, target)) {
      db.exec(step.sql);
    }
    if (version < target) db.pragma(`user_version = ${target}`);
  }).immediate();
}
