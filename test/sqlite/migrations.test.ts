/**
 * Versioned schema: a newer Vigil opens a file an older one wrote and
 * upgrades it in place with its data intact; a file from a newer Vigil is
 * refused with schema_too_new and left untouched.
 */
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VigilError } from '../../src/index.js';
import { INBOX_SCHEMA, migrate } from '../../src/store/sqlite/migrate.js';
import { T0, useTempStores } from './temp-dirs.js';

const stores = useTempStores();

/** Writes `<dir>/<id>.db` at schema `version` with one pending event and a lease. */
function writeOldFile(dir: string, id: string, version: number): string {
  const file = join(dir, `${id}.db`);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    migrate(db, file, INBOX_SCHEMA, version);
    db.prepare("INSERT INTO events (source, source_id, payload, received_at) VALUES ('mail', 'm-1', '{\"subject\":\"old\"}', 5)").run();
    db.prepare("INSERT INTO lease (one, holder, gen, until) VALUES (1, 'old-worker', 7, 10)").run();
  } finally {
    db.close();
  }
  return file;
}

function userVersion(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

describe('SQLite schema migrations', () => {
  it('numbers its migrations 1..n with no gaps', () => {
    expect(INBOX_SCHEMA.migrations().map((m) => m.version)).toEqual(Array.from({ length: INBOX_SCHEMA.latestVersion() }, (_, i) => i + 1));
    expect(INBOX_SCHEMA.latestVersion()).toBeGreaterThanOrEqual(3);
  });

  it('a new inbox file is created at the latest version', async () => {
    const dir = stores.dir();
    const { store } = await stores.open(dir);
    await store.inbox('alice').ingest({ source: 's', sourceId: '1' });
    await store.close();
    expect(userVersion(join(dir, 'alice.db'))).toBe(INBOX_SCHEMA.latestVersion());
  });

  it.each(Array.from({ length: INBOX_SCHEMA.latestVersion() }, (_, i) => i + 1))(
    'a file at version %i is upgraded on open, its events and lease intact, and every later feature works',
    async (version) => {
      const dir = stores.dir();
      const file = writeOldFile(dir, 'alice', version);
      expect(userVersion(file)).toBe(version);
      const { store, clock } = await stores.open(dir, { outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      expect(await inbox.events()).toEqual([
        {
          id: 1,
          source: 'mail',
          sourceId: 'm-1',
          payload: { subject: 'old' },
          status: 'pending',
          attempts: 0,
          error: null,
          lastError: null,
          receivedAt: 5,
        },
      ]);
      expect((await inbox.stats()).lease).toEqual({ holder: 'old-worker', gen: 7, until: 10 });
      expect(userVersion(file)).toBe(INBOX_SCHEMA.latestVersion());
      // The old lease expired long ago: the takeover continues its generations.
      expect(await inbox.acquire('new-worker')).toBe(8);
      const [event] = await inbox.claimBatch('new-worker', 8);
      expect(await inbox.finish('new-worker', 8, [event!.id], { messages: ['answered'] })).toBe(true);
      await inbox.addTimer({ id: 't', due: T0 });
      await inbox.requestApproval({ id: 'a', expiresInMs: 10, action: 'x' });
      clock.advance(10);
      expect(await inbox.runScheduler()).toBe(2);
      const sent: string[] = [];
      expect(await inbox.dispatch((body) => void sent.push(body))).toBe(1);
      expect(sent).toEqual(['answered']);
    },
  );

  it('upgrading is idempotent: opening an upgraded file again changes nothing', async () => {
    const dir = stores.dir();
    const file = writeOldFile(dir, 'alice', 1);
    const first = await stores.open(dir);
    expect(await first.store.inbox('alice').events()).toHaveLength(1);
    await first.store.close();
    const second = await stores.open(dir);
    expect(await second.store.inbox('alice').events()).toHaveLength(1);
    expect(userVersion(file)).toBe(INBOX_SCHEMA.latestVersion());
  });

  it('a file with a newer schema (user_version 99) is refused with schema_too_new and left untouched', async () => {
    const dir = stores.dir();
    const file = writeOldFile(dir, 'future', INBOX_SCHEMA.latestVersion());
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = readFileSync(file);
    const { store } = await stores.open(dir);
    const inbox = store.inbox('future');
    for (const call of [() => inbox.events(), () => inbox.ingest({ source: 's', sourceId: '2' }), () => inbox.acquire('W')]) {
      const error = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(VigilError);
      expect((error as VigilError).code).toBe('schema_too_new');
      expect((error as VigilError).message).toMatch(/99/);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(userVersion(file)).toBe(99);
    // Other inboxes in the same store are unaffected.
    expect(await store.inbox('alice').ingest({ source: 's', sourceId: '1' })).toBe(true);
  });

  it('a migration that fails is rolled back whole: the file stays at its old version', async () => {
    const dir = stores.dir();
    const file = writeOldFile(dir, 'alice', 1);
    const db = new Database(file);
    db.exec('CREATE TABLE outbox (unexpected TEXT)'); // migration 3 will collide with it
    db.close();
    const { store } = await stores.open(dir);
    await expect(store.inbox('alice').events()).rejects.toThrow(/outbox/);
    expect(userVersion(file)).toBe(1);
    const check = new Database(file, { readonly: true });
    const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    check.close();
    expect(tables).not.toContain('timers'); // migration 2 ran inside the same failed transaction
    expect(tables).toEqual(expect.arrayContaining(['events', 'lease', 'outbox']));
  });
});
