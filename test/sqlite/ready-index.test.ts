/**
 * The ready index (`_vigil-ready.db` beside the inbox files): readyInboxes()
 * and dispatchableInboxes() read it instead of opening every inbox, it
 * survives a reopen, and store.rebuildReadyIndex() restores it from the
 * inbox files when it is lost.
 */
import Database from 'better-sqlite3';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { READY_INDEX_FILE } from '../../src/store/sqlite/ready-index.js';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { T0, openDescriptors, useTempStores } from './temp-dirs.js';

const stores = useTempStores();

/** Four inboxes in four states: an event, a due timer, held mail, nothing due. */
async function populate(store: Store): Promise<void> {
  await store.inbox('has-event').ingest({ source: 's', sourceId: '1' });
  await store.inbox('has-timer').addTimer({ id: 't', due: T0 + 100 });
  const mail = store.inbox('has-mail');
  const gen = (await mail.acquire('W')) as number;
  await mail.finish('W', gen, [], { messages: ['hello'] });
  await mail.release('W', gen);
  await store.inbox('idle').addTimer({ id: 't', due: T0 + 1_000_000 });
}

function removeIndex(dir: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, READY_INDEX_FILE + suffix), { force: true });
}

describe('SQLite ready index', () => {
  it('lives in one file beside the inboxes that no inbox id can name', async () => {
    const dir = stores.dir();
    const { store } = await stores.open(dir);
    await store.inbox('alice').ingest({ source: 's', sourceId: '1' });
    expect(existsSync(join(dir, READY_INDEX_FILE))).toBe(true);
    expect(READY_INDEX_FILE.startsWith('_')).toBe(true);
    expect(await store.inboxes()).toEqual(['alice']);
  });

  it('follows due work as the clock moves', async () => {
    const { store, clock } = await stores.open(stores.dir());
    await populate(store);
    expect(await store.readyInboxes()).toEqual(['has-event']);
    expect(await store.dispatchableInboxes()).toEqual(['has-mail']);
    clock.set(T0 + 100);
    expect(await store.readyInboxes()).toEqual(['has-event', 'has-timer']);
    await store.inbox('has-timer').runScheduler(); // the timer became an event received now
    expect(await store.readyInboxes()).toEqual(['has-event', 'has-timer']);
    await store.inbox('has-mail').dispatch(() => undefined);
    expect(await store.dispatchableInboxes()).toEqual([]);
  });

  it('survives closing and reopening the store', async () => {
    const dir = stores.dir();
    const first = await stores.open(dir);
    await populate(first.store);
    await first.store.close();
    const { store } = await stores.open(dir);
    expect(await store.readyInboxes()).toEqual(['has-event']);
    expect(await store.dispatchableInboxes()).toEqual(['has-mail']);
  });

  it('answers from the index alone: a poll over 100 inboxes opens no inbox file', async () => {
    const dir = stores.dir();
    const first = await stores.open(dir, { maxOpenInboxes: 200, synchronous: 'normal' });
    for (let i = 0; i < 100; i++) await first.store.inbox(`idle-${i}`).addTimer({ id: 't', due: T0 + 1_000_000 });
    await first.store.inbox('busy').ingest({ source: 's', sourceId: '1' });
    await first.store.close();
    const before = openDescriptors();
    const { store } = await stores.open(dir, { maxOpenInboxes: 200 });
    expect(await store.readyInboxes()).toEqual(['busy']);
    expect(await store.dispatchableInboxes()).toEqual([]);
    expect(openDescriptors() - before).toBeLessThanOrEqual(3); // the index's own db, -wal, -shm
  });

  it('rebuildReadyIndex() restores a deleted index from the inbox files', async () => {
    const dir = stores.dir();
    const first = await stores.open(dir);
    await populate(first.store);
    await first.store.close();
    removeIndex(dir);
    const { store, clock } = await stores.open(dir);
    expect(await store.readyInboxes()).toEqual([]); // the hint is gone; the truth is not
    expect(await store.dispatchableInboxes()).toEqual([]);
    expect(await (store as SqliteStore).rebuildReadyIndex()).toBe(4);
    expect(await store.readyInboxes()).toEqual(['has-event']);
    expect(await store.dispatchableInboxes()).toEqual(['has-mail']);
    clock.set(T0 + 100);
    expect(await store.readyInboxes()).toEqual(['has-event', 'has-timer']);
    // Rebuilding changed no inbox's data.
    expect((await store.inbox('has-event').stats()).events.pending).toBe(1);
    expect((await store.inbox('has-mail').stats()).outbox.held).toBe(1);
  });

  it('rebuildReadyIndex() leaves a live lease in charge: its events are listed only after it lapses', async () => {
    const dir = stores.dir();
    const first = await stores.open(dir, { leaseTtlMs: 1_000 });
    await first.store.inbox('leased').acquire('W');
    await first.store.inbox('leased').ingest({ source: 's', sourceId: '1' });
    await first.store.close();
    removeIndex(dir);
    const { store, clock } = await stores.open(dir, { leaseTtlMs: 1_000 });
    await (store as SqliteStore).rebuildReadyIndex();
    clock.set(T0 + 1_000);
    expect(await store.readyInboxes()).toEqual([]);
    clock.set(T0 + 1_001);
    expect(await store.readyInboxes()).toEqual(['leased']);
  });

  it('two store handles on one directory share the index', async () => {
    const dir = stores.dir();
    const a = await stores.open(dir);
    const b = await stores.open(dir);
    await a.store.inbox('alice').ingest({ source: 's', sourceId: '1' });
    expect(await b.store.readyInboxes()).toEqual(['alice']);
    const inbox = b.store.inbox('alice');
    const gen = (await inbox.acquire('W')) as number;
    const batch = await inbox.claimBatch('W', gen);
    await inbox.finish('W', gen, batch.map((e) => e.id));
    expect(await a.store.readyInboxes()).toEqual([]);
  });

  describe('the dead column (listInboxes attention)', () => {
    /** An inbox with one dead event, one with a pending event, one with nothing to do. */
    async function populateAttention(store: Store): Promise<void> {
      const dead = store.inbox('has-dead');
      await dead.ingest({ source: 's', sourceId: '1' });
      const gen = (await dead.acquire('W')) as number;
      const batch = await dead.claimBatch('W', gen);
      await dead.finish('W', gen, batch.map((e) => e.id), { error: 'poison', dead: true });
      await dead.release('W', gen);
      await store.inbox('has-event').ingest({ source: 's', sourceId: '1' });
      await store.inbox('idle').addTimer({ id: 't', due: T0 + 1_000_000 });
    }

    function deadColumn(dir: string): Record<string, number | null> {
      const db = new Database(join(dir, READY_INDEX_FILE), { readonly: true });
      try {
        const rows = db.prepare('SELECT inbox_id, dead FROM wake ORDER BY inbox_id').all() as { inbox_id: string; dead: number | null }[];
        return Object.fromEntries(rows.map((row) => [row.inbox_id, row.dead]));
      } finally {
        db.close();
      }
    }

    it('is settled by each write with the inbox\'s dead events, and redrive clears it', async () => {
      const dir = stores.dir();
      const { store } = await stores.open(dir);
      await populateAttention(store);
      expect(deadColumn(dir)).toEqual({ 'has-dead': 1, 'has-event': 0, idle: 0 });
      const inbox = store.inbox('has-dead');
      const [event] = await inbox.events({ status: 'dead' });
      await inbox.redrive(event!.id);
      expect(deadColumn(dir)['has-dead']).toBe(0);
      expect(await store.listInboxes({ attention: true, stuckAfterMs: 0 })).toMatchObject({ total: 2, needAttention: 2 });
    });

    it('an index file from before the column is upgraded, and the dead events of every inbox are counted once', async () => {
      const dir = stores.dir();
      const first = await stores.open(dir);
      await populateAttention(first.store);
      await first.store.close();
      // The index as the previous version wrote it: no dead column, no indexes on it.
      const old = new Database(join(dir, READY_INDEX_FILE));
      old.exec(`
        DROP INDEX wake_with_dead; DROP INDEX wake_dead_unknown;
        CREATE TABLE old_wake (inbox_id TEXT PRIMARY KEY, wake_at INTEGER, send_at INTEGER, seq INTEGER NOT NULL, exact INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO old_wake SELECT inbox_id, wake_at, send_at, seq, exact FROM wake;
        DROP TABLE wake; ALTER TABLE old_wake RENAME TO wake;
        CREATE INDEX wake_by_time ON wake (wake_at) WHERE wake_at IS NOT NULL;
        CREATE INDEX send_by_time ON wake (send_at) WHERE send_at IS NOT NULL;`);
      old.close();

      const { store } = await stores.open(dir);
      expect(deadColumn(dir)).toEqual({ 'has-dead': null, 'has-event': null, idle: null });
      expect(await store.readyInboxes()).toEqual(['has-event']); // the rest of the row is as it was
      const list = await store.listInboxes({ attention: true });
      expect(list.inboxes.map((i) => i.id)).toEqual(['has-dead']);
      expect(list.needAttention).toBe(1);
      expect(deadColumn(dir)).toEqual({ 'has-dead': 1, 'has-event': 0, idle: 0 });
    });

    it('a write fills the unknown count of its own inbox', async () => {
      const dir = stores.dir();
      const first = await stores.open(dir);
      await populateAttention(first.store);
      await first.store.close();
      const old = new Database(join(dir, READY_INDEX_FILE));
      old.exec('UPDATE wake SET dead = NULL');
      old.close();
      const { store } = await stores.open(dir);
      await store.inbox('has-dead').addTimer({ id: 't', due: T0 + 5 });
      expect(deadColumn(dir)['has-dead']).toBe(1);
    });

    it('rebuildReadyIndex() restores it', async () => {
      const dir = stores.dir();
      const first = await stores.open(dir);
      await populateAttention(first.store);
      await first.store.close();
      removeIndex(dir);
      const { store } = await stores.open(dir);
      expect(await (store as SqliteStore).rebuildReadyIndex()).toBe(3);
      expect(deadColumn(dir)).toEqual({ 'has-dead': 1, 'has-event': 0, idle: 0 });
      expect((await store.listInboxes({ attention: true })).inboxes.map((i) => i.id)).toEqual(['has-dead']);
    });

    it('listInboxes opens only the files of the page it shows', async () => {
      const dir = stores.dir();
      const first = await stores.open(dir, { maxOpenInboxes: 200, synchronous: 'normal' });
      for (let i = 0; i < 100; i++) await first.store.inbox(`idle-${String(i).padStart(3, '0')}`).addTimer({ id: 't', due: T0 + 1_000_000 });
      await first.store.close();
      const before = openDescriptors();
      const { store } = await stores.open(dir, { maxOpenInboxes: 200 });
      const page = await store.listInboxes({ limit: 5, after: 'idle-049' });
      expect(page.inboxes.map((i) => i.id)).toEqual(['idle-050', 'idle-051', 'idle-052', 'idle-053', 'idle-054']);
      expect(page).toMatchObject({ total: 100, next: 'idle-054', needAttention: 0 });
      // The index's db, -wal, -shm, and three per listed inbox.
      expect(openDescriptors() - before).toBeLessThanOrEqual(3 + 5 * 3);
    });
  });
});
