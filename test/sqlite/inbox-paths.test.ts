/**
 * R11 on disk: an inbox id is a file name inside the store directory, never
 * a path. Nothing a caller passes as an id creates or opens a file anywhere
 * else, and inboxes() lists only real inbox files.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVigilError } from '../../src/index.js';
import { READY_INDEX_FILE } from '../../src/store/sqlite/ready-index.js';
import { useTempStores } from './temp-dirs.js';

const stores = useTempStores();

const HOSTILE = ['../escaped', '../../etc/passwd', 'a/b', '/tmp/abs', '.hidden', '..', '.', 'a\u0000b', 'x\\..\\y', '_vigil-ready', ' lead', 'a'.repeat(129)];

/** Every file under `dir`, as relative paths. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('SQLite inbox files stay inside the store directory', () => {
  it('hostile ids create nothing, inside the directory or beside it', async () => {
    const parent = stores.dir();
    const dir = join(parent, 'data');
    const { store } = await stores.open(dir);
    const before = { parent: tree(parent), dir: tree(dir) };
    for (const id of HOSTILE) {
      let error: unknown;
      try {
        await store.inbox(id).ingest({ source: 's', sourceId: '1' });
      } catch (e) {
        error = e;
      }
      expect(isVigilError(error, 'invalid_inbox_id'), `id ${JSON.stringify(id)}`).toBe(true);
    }
    expect(tree(parent)).toEqual(before.parent);
    expect(tree(dir)).toEqual(before.dir);
  });

  it('a valid id maps to exactly <dir>/<id>.db (plus its WAL files)', async () => {
    const dir = stores.dir();
    const { store } = await stores.open(dir);
    await store.inbox('team.alice_2-prod').ingest({ source: 's', sourceId: '1' });
    const files = readdirSync(dir).filter((f) => !f.startsWith('_vigil-ready'));
    expect(files.sort()).toEqual(['team.alice_2-prod.db', 'team.alice_2-prod.db-shm', 'team.alice_2-prod.db-wal']);
  });

  it('an id that differs from an existing inbox only in case is refused before a file is made, even on a file system that keeps case', async () => {
    const dir = stores.dir();
    const { store } = await stores.open(dir);
    await store.inbox('Alice').ingest({ source: 's', sourceId: 'upper' });
    await expect(store.inbox('alice').ingest({ source: 's', sourceId: 'lower' })).rejects.toMatchObject({ code: 'invalid_inbox_id' });
    expect(existsSync(join(dir, 'alice.db'))).toBe(false);
    expect(await store.inboxes()).toEqual(['Alice']);
  });

  it("an inbox whose file resolves to another inbox's (a case-blind file system, or a link) is refused, and nothing is stored", async () => {
    // Where names ignore case, "alice.db" opens "Alice.db". This machine's file
    // system keeps case, so a link makes the same thing happen: the name resolves
    // to a file stored under another inbox's name.
    const dir = stores.dir();
    const first = await stores.open(dir);
    await first.store.inbox('Alice').ingest({ source: 's', sourceId: 'hers' });
    await first.store.close();
    symlinkSync('Alice.db', join(dir, 'alice.db'));

    const { store } = await stores.open(dir);
    const refused = store.inbox('alice').ingest({ source: 's', sourceId: 'not-hers' });
    await expect(refused).rejects.toMatchObject({
      code: 'invalid_inbox_id',
      message: expect.stringContaining(`inbox "alice" cannot be opened: its file resolves to inbox "Alice"'s (Alice.db)`),
    });
    await expect(store.inbox('alice').events()).rejects.toMatchObject({ code: 'invalid_inbox_id' });
    expect((await store.inbox('Alice').events()).map((e) => e.sourceId)).toEqual(['hers']);
  });

  it('an index row for an id whose file is another inbox\'s: the overview still lists, and that id is no longer picked up', async () => {
    // As a stale index beside a link (or a copied directory) can leave it:
    // a row for 'alice', and a name that resolves to Alice's file.
    const dir = stores.dir();
    const first = await stores.open(dir);
    await first.store.inbox('Alice').ingest({ source: 's', sourceId: 'hers' });
    await first.store.close();
    const index = new Database(join(dir, READY_INDEX_FILE));
    index.prepare("INSERT INTO wake (inbox_id, wake_at, send_at, seq, exact, dead) VALUES ('alice', 1, NULL, 1, 1, 0)").run();
    index.close();
    symlinkSync('Alice.db', join(dir, 'alice.db'));

    const { store } = await stores.open(dir);
    expect(await store.readyInboxes()).toEqual(['alice', 'Alice']); // the index's view
    // The page in hand shows it as empty rather than failing; its row is gone after.
    const overview = await store.listInboxes();
    expect(overview.inboxes.map((i) => [i.id, i.events.pending])).toEqual([['Alice', 1], ['alice', 0]]);
    expect(await store.readyInboxes()).toEqual(['Alice']);
    expect((await store.listInboxes()).inboxes.map((i) => i.id)).toEqual(['Alice']);
  });

  it('inboxes() ignores files that are not inbox files', async () => {
    const dir = stores.dir();
    const { store } = await stores.open(dir);
    await store.inbox('alice').ingest({ source: 's', sourceId: '1' });
    for (const name of ['notes.txt', 'bad name.db', '.hidden.db', '-dash.db', 'alice.db.bak', 'alice.sqlite']) {
      writeFileSync(join(dir, name), '');
    }
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'nested', 'bob.db'), '');
    expect(await store.inboxes()).toEqual(['alice']);
  });

  it('a relative sqlite: URL resolves once, at open', async () => {
    const dir = stores.dir();
    const cwd = process.cwd();
    process.chdir(dir);
    let store;
    try {
      ({ store } = await stores.open('./rel'));
    } finally {
      process.chdir(cwd);
    }
    await store.inbox('alice').ingest({ source: 's', sourceId: '1' });
    expect(readdirSync(join(dir, 'rel'))).toContain('alice.db');
  });
});
