/**
 * One inbox file that cannot be read must not take the overview with it:
 * listInboxes returns its row with the reason, and every other row as
 * usual (SQLite; a PostgreSQL inbox has no file of its own to lose).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempStores } from './temp-dirs.js';

describe('an unreadable inbox in listInboxes (SQLite)', () => {
  const temp = useTempStores();

  it('is one row with the reason and zero counts; the others are read', async () => {
    const dir = temp.dir();
    const first = await temp.open(dir);
    for (const id of ['alice', 'broken', 'carol']) await first.store.inbox(id).ingest({ source: 's', sourceId: '1' });
    await first.store.close();
    // The index still lists it; its file is now garbage (a disk fault, a bad copy).
    writeFileSync(join(dir, 'broken.db'), 'this is not a SQLite database, just text long enough to be read as a header. '.repeat(20));
    const { store } = await temp.open(dir);
    const list = await store.listInboxes();
    expect(list.inboxes.map((row) => [row.id, row.events.pending, row.unreadable === null ? null : 'reason'])).toEqual([
      ['alice', 1, null],
      ['broken', 0, 'reason'],
      ['carol', 1, null],
    ]);
    expect(list.inboxes[1]!.unreadable).toMatch(/^a file in the data directory is not a SQLite database \(SQLITE_NOTADB on .*broken\.db\)$/);
    expect(list.total).toBe(3);
  });
});
