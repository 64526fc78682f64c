/**
 * Versioned schemas of the SQLite files: each inbox file (./migrations) and
 * the ready index (./ready-index-migrations). The version lives in
 * `PRAGMA user_version`; numbered .sql files are applied in order inside
 * one BEGIN IMMEDIATE, so two processes opening a new file at once cannot
 * both apply the same step, and a file newer than the code is refused.
 */
import type { Database } from 'better-sqlite3';
import { VigilError } from '../../errors.js';
import { readMigrations, type Migration } from '../migration-files.js';


export class Schema {
  private cached: Migration[] | undefined;

  constructor(private readonly dir: URL) {}

  migrations(): Migration[] {
    this.cached ??= readMigrations(this.dir);
    return this.cached;
  }

  latestVersion(): number {
    return this.migrations().length;
  }
}

export const INBOX_SCHEMA = new Schema(new URL('./migrations/', import.meta.url));
export const READY_INDEX_SCHEMA = new Schema(new URL('./ready-index-migrations/', import.meta.url));

/** Brings the file up to `target` (default: the newest this code knows). */
export function migrate(db: Database, file: string, schema: Schema = INBOX_SCHEMA, target = schema.latestVersion()): void {
  const latest = schema.latestVersion();
  const check = (version: number): void => {
    if (version > latest) {
      throw new VigilError(
        'schema_too_new',
        `${file} has schema version ${version}, but this Vigil knows only up to ${latest}: upgrade Vigil before opening it`,
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
    for (const step of schema.migrations().slice(version, target)) {
      db.exec(step.sql);
    }
    if (version < target) db.pragma(`user_version = ${target}`);
  }).immediate();
}

const INCREMENTAL = 2;

/**
 * Inbox files give the space of pruned rows back (InboxDb.releaseFreePages)
 * through incremental vacuum, which SQLite can only switch on before the
 * first table is created ('new': a file being created) or with a VACUUM
 * that rewrites the file ('existing': once, for a file made before
 * retention existed, at its first open by this version).
 */
export function useIncrementalVacuum(db: Database, file: 'new' | 'existing'): void {
  if (file === 'new') {
    const empty = db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() === 0;
    if (empty) db.pragma('auto_vacuum = INCREMENTAL');
    return;
  }
  if (db.pragma('auto_vacuum', { simple: true }) === INCREMENTAL) return;
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
}
