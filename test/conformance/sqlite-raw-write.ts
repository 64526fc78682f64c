/** OpenedStore.rawWrite on a SQLite store's directory: an UPDATE on the inbox's own file, on a connection of its own. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RawColumn } from './harness.js';

export function sqliteRawWrite(dir: string): (inboxId: string, column: RawColumn, value: string) => Promise<void> {
  return async (inboxId, column, value) => {
    const [table, name] = column.split('.') as [string, string];
    const db = new Database(join(dir, `${inboxId}.db`), { fileMustExist: true, timeout: 5_000 });
    try {
      db.prepare(`UPDATE ${table} SET ${name} = CAST(? AS INTEGER)`).run(value);
    } finally {
      db.close();
    }
  };
}
