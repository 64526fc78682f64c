/**
 * The ready index (`_vigil-ready.db` beside the inbox files): readyInboxes()
 * and dispatchableInboxes() read it instead of opening every inbox, it
 * survives a reopen, and it is re-derived from the inbox files when it may
 * have lost commits: at the first open in a machine boot (a power loss
 * takes the index's unsynced commits, never an inbox's), when its file is
 * new, and by store.rebuildReadyIndex().
 */
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, type Store } from '../../src/index.js';
import { READY_INDEX_FILE } from '../../src/store/sqlite/ready-index.js';
import { SqliteStore, sqliteBackendOf } from '../../src/store/sqlite/sqlite-store.js';
import { VigilStore } from '../../src/store/engine/store.js';
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

/** The boots the index was re-derived in (at most one row), read with the store closed or open. */
function rebuiltBoots(dir: string): unknown[] {
  const index = new Database(join(dir, READY_INDEX_FILE));
  try {
    return index.prepare('SELECT boot FROM rebuilt').pluck().all();
  } finally {
    index.close();
  }
}

function removeIndex(dir: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, READY_INDEX_FILE + suffix), { force: true });
}

/**
 * What the index's WAL holds since it was last emptied (emptyIndexWal): the
 * frames of its current salt (one page each), and the commits among them
 * (a transaction's last frame records the database's size).
 */
function indexWal(dir: string): { commits: number; pages: number } {
  const wal = readFileSync(join(dir, `${READY_INDEX_FILE}-wal`));
  const written = { commits: 0, pages: 0 };
  if (wal.length < 32) return written;
  const pageSize = wal.readUInt32BE(8);
  const [salt1, salt2] = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    written.pages++;
    if (wal.readUInt32BE(at + 4) !== 0) written.commits++;
  }
  return written;
}

/** What the index's WAL took from one step: its WAL emptied first, then read after. */
async function indexWrites(dir: string, step: () => Promise<unknown>): Promise<{ commits: number; pages: number }> {
  emptyIndexWal(dir);
  await step();
  return indexWal(dir);
}

/** Checkpoints the index and empties its WAL, from a connection of its own. */
function emptyIndexWal(dir: string): void {
  const index = new Database(join(dir, READY_INDEX_FILE));
  try {
    index.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    index.close();
  }
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

  it('a write that moves no time later commits the exact row once, before the inbox commits; one that moves a time later settles after', async () => {
    const dir = stores.dir();
    const { store } = await stores.open(dir);
    const inbox = store.inbox('alice');
    const commitsOf = async (step: () => Promise<unknown>): Promise<number> => (await indexWrites(dir, step)).commits;

    // A new inbox, and an idle one: the ingest only makes it due sooner, so the row
    // it would lower to is the exact one.
    expect(await commitsOf(() => inbox.ingest({ source: 's', sourceId: '1' }))).toBe(1);
    expect(await store.readyInboxes()).toEqual(['alice']);
    const gen = (await inbox.acquire('W')) as number;
    const [event] = await inbox.claimBatch('W', gen);
    await inbox.finish('W', gen, [event!.id]);
    await inbox.release('W', gen);
    expect(await store.readyInboxes()).toEqual([]);
    expect(await commitsOf(() => inbox.ingest({ source: 's', sourceId: '2' }))).toBe(1);
    expect(await store.readyInboxes()).toEqual(['alice']);

    // The lease hides the event (later): settled after the commit only.
    let next = 0;
    expect(await commitsOf(async () => (next = (await inbox.acquire('W')) as number))).toBe(1);
    const [second] = await inbox.claimBatch('W', next);
    expect(await store.readyInboxes()).toEqual([]);
    // Done (later) with a reply (sooner): lowered before the commit, settled after.
    expect(await commitsOf(() => inbox.finish('W', next, [second!.id], { messages: ['hi'] }))).toBe(2);
    expect(await store.dispatchableInboxes()).toEqual(['alice']);
    expect(await store.readyInboxes()).toEqual([]);
  });

  it('a settle that keeps one of the two times leaves the index of that time unwritten', async () => {
    const dir = stores.dir();
    const { store } = await stores.open(dir);
    const inbox = store.inbox('alice');
    const gen = (await inbox.acquire('W')) as number;
    await inbox.finish('W', gen, [], { messages: ['held'] });
    await inbox.release('W', gen);
    expect(await store.dispatchableInboxes()).toEqual(['alice']);

    // wake_at moves, send_at stays (the mail is still held): the row's page and wake_at's index page.
    expect(await indexWrites(dir, () => inbox.ingest({ source: 's', sourceId: '1' }))).toEqual({ commits: 1, pages: 2 });
    expect(await indexWrites(dir, () => inbox.acquire('W'))).toEqual({ commits: 1, pages: 2 });
    expect(await store.readyInboxes()).toEqual([]);
    // send_at moves, wake_at stays: the row's page and send_at's index page, in each of the dispatch's commits.
    const sent = await indexWrites(dir, () => inbox.dispatch(() => undefined));
    expect(sent.pages).toBe(2 * sent.commits);
    expect(await store.dispatchableInboxes()).toEqual([]);
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

  it('a deleted index file is re-derived from the inbox files at the next open', async () => {
    const dir = stores.dir();
    const first = await stores.open(dir);
    await populate(first.store);
    await first.store.close();
    removeIndex(dir);
    const { store, clock } = await stores.open(dir);
    await sqliteBackendOf(store).readyIndexSettled();
    expect(await store.readyInboxes()).toEqual(['has-event']);
    expect(await store.dispatchableInboxes()).toEqual(['has-mail']);
    clock.set(T0 + 100);
    expect(await store.readyInboxes()).toEqual(['has-event', 'has-timer']);
    // Rebuilding changed no inbox's data.
    expect((await store.inbox('has-event').stats()).events.pending).toBe(1);
    expect((await store.inbox('has-mail').stats()).outbox.held).toBe(1);
  });

  it('rebuildReadyIndex() restores rows lost while the store is open', async () => {
    const dir = stores.dir();
    const { store, clock } = await stores.open(dir);
    await populate(store);
    const index = new Database(join(dir, READY_INDEX_FILE));
    index.exec('DELETE FROM wake');
    index.close();
    expect(await store.readyInboxes()).toEqual([]); // the hint is gone; the truth is not
    expect(await sqliteBackendOf(store).rebuildReadyIndex()).toBe(4);
    expect(await store.readyInboxes()).toEqual(['has-event']);
    expect(await store.dispatchableInboxes()).toEqual(['has-mail']);
    clock.set(T0 + 100);
    expect(await store.readyInboxes()).toEqual(['has-event', 'has-timer']);
  });

  describe('after a power loss (a new machine boot)', () => {
    const clock = createFakeClock(T0);
    const opened: Store[] = [];
    /** A store opened in that boot, once its rebuild (if the boot is new to the index) is done. */
    const openInBoot = async (dir: string, bootId: string): Promise<Store> => {
      const store = openInBootNow(dir, bootId);
      await sqliteBackendOf(store).readyIndexSettled();
      return store;
    };
    /** The same, returned as soon as it is open: a rebuild may still be running. */
    const openInBootNow = (dir: string, bootId: string, more: { rebuildSliceMs?: number; maxOpenInboxes?: number } = {}): Store => {
      const { rebuildSliceMs, maxOpenInboxes } = more;
      const store = new VigilStore(
        new SqliteStore(
          dir,
          { clock: clock.now, ...(maxOpenInboxes === undefined ? {} : { maxOpenInboxes }) },
          { bootId, ...(rebuildSliceMs === undefined ? {} : { rebuildSliceMs }) },
        ),
      );
      opened.push(store);
      return store;
    };
    const closeAll = async (): Promise<void> => {
      for (const store of opened.splice(0)) await store.close();
    };
    afterEach(closeAll);

    /**
     * The disk as a power loss leaves it: every inbox commit (synced) kept,
     * the index's commits since `snapshot` (not synced) gone. Taken and put
     * back with the store closed, so the index is one file.
     */
    async function loseIndexCommitsSince(dir: string, work: () => Promise<void>): Promise<void> {
      const file = join(dir, READY_INDEX_FILE);
      copyFileSync(file, `${file}.before`);
      await work();
      await closeAll();
      removeIndex(dir);
      copyFileSync(`${file}.before`, file);
      rmSync(`${file}.before`);
    }

    it('work stored just before it is listed again at the first open in the next boot, not before', async () => {
      const dir = stores.dir();
      const before = await openInBoot(dir, 'boot-1');
      await populate(before);
      await closeAll();
      await loseIndexCommitsSince(dir, async () => {
        const store = await openInBoot(dir, 'boot-1');
        expect(await store.inbox('late').ingest({ source: 's', sourceId: 'acked' })).toBe(true); // durable (R10)
        await store.inbox('late-timer').addTimer({ id: 't', due: T0 + 50 });
      });

      // Still boot 1 (a process restart, not a power loss): nothing re-derives the index, and
      // the two inboxes stay hidden. This is the state the rule below exists for.
      const sameBoot = await openInBoot(dir, 'boot-1');
      expect(await sameBoot.readyInboxes()).toEqual(['has-event']);
      expect((await sameBoot.nextWake()).wakeAt).toBe(T0);
      await closeAll();

      const nextBoot = await openInBoot(dir, 'boot-2');
      expect(await nextBoot.readyInboxes()).toEqual(['has-event', 'late']);
      expect(await nextBoot.dispatchableInboxes()).toEqual(['has-mail']);
      clock.set(T0 + 50);
      expect(await nextBoot.readyInboxes()).toEqual(['has-event', 'late', 'late-timer']);
      expect((await nextBoot.inbox('late').events()).map((e) => e.sourceId)).toEqual(['acked']);
      clock.set(T0);
    });

    it('runs in the background: the open returns at once, and listeners hear of each inbox whose work it brings back', async () => {
      const dir = stores.dir();
      await populate(await openInBoot(dir, 'boot-1'));
      await closeAll();
      await loseIndexCommitsSince(dir, async () => {
        const store = await openInBoot(dir, 'boot-1');
        await store.inbox('late').ingest({ source: 's', sourceId: 'acked' });
        await store.inbox('late-timer').addTimer({ id: 't', due: T0 + 50 });
      });

      const store = openInBootNow(dir, 'boot-2');
      const heard: string[] = [];
      await store.subscribe((inboxId) => heard.push(inboxId));
      // Nothing re-derived yet: the index answers with what it kept.
      expect(await store.readyInboxes()).toEqual(['has-event']);
      await sqliteBackendOf(store).readyIndexSettled();
      expect(await store.readyInboxes()).toEqual(['has-event', 'late']);
      // The two rows the power loss took; nothing for the rows the index still had right.
      expect(heard.sort()).toEqual(['late', 'late-timer']);
    });

    it('gives other work turns while it runs: an ingest during the rebuild is stored and listed', async () => {
      const dir = stores.dir();
      const seed = await openInBoot(dir, 'boot-1');
      for (let i = 0; i < 50; i++) await seed.inbox(`idle-${i}`).addTimer({ id: 't', due: T0 + 1_000_000 });
      await closeAll();

      // A turn after every inbox, however fast the disk: 50 turns to the ingest's few.
      const store = openInBootNow(dir, 'boot-2', { rebuildSliceMs: 0 });
      let settled = false;
      const rebuild = sqliteBackendOf(store).readyIndexSettled().then(() => {
        settled = true;
      });
      expect(await store.inbox('caller').ingest({ source: 's', sourceId: '1' })).toBe(true);
      expect(settled).toBe(false);
      expect(await store.readyInboxes()).toEqual(['caller']);
      await rebuild;
      expect(await store.readyInboxes()).toEqual(['caller']);
    });

    it('leaves the open-file cache to the inboxes in use: the files it reads are closed again', async () => {
      const dir = stores.dir();
      const seed = await openInBoot(dir, 'boot-1');
      for (let i = 0; i < 40; i++) await seed.inbox(`idle-${i}`).addTimer({ id: 't', due: T0 + 1_000_000 });
      await closeAll();
      const before = openDescriptors();
      const store = openInBootNow(dir, 'boot-2', { maxOpenInboxes: 100 });
      await sqliteBackendOf(store).readyIndexSettled();
      expect(openDescriptors() - before).toBeLessThanOrEqual(3); // the index's own db, -wal, -shm
      expect(rebuiltBoots(dir)).toEqual(['boot-2']);
    });

    it('close() called twice while it runs: both wait for the same shutdown', async () => {
      const dir = stores.dir();
      await populate(await openInBoot(dir, 'boot-1'));
      await closeAll();
      const store = openInBootNow(dir, 'boot-2');
      const first = store.close();
      expect(store.close()).toBe(first);
      await first;
    });

    it('a directory with no inbox files has nothing to re-derive: the boot is recorded at open, even if the store closes at once', async () => {
      const dir = stores.dir();
      await openInBootNow(dir, 'boot-1').close();
      expect(rebuiltBoots(dir)).toEqual(['boot-1']);
    });

    it('a store closed while it runs stops it, unrecorded; the next open in that boot starts it again', async () => {
      const dir = stores.dir();
      await populate(await openInBoot(dir, 'boot-1'));
      await closeAll();
      await loseIndexCommitsSince(dir, async () => {
        await (await openInBoot(dir, 'boot-1')).inbox('late').ingest({ source: 's', sourceId: 'acked' });
      });
      await openInBootNow(dir, 'boot-2').close(); // before its first slice
      expect(rebuiltBoots(dir)).toEqual(['boot-1']);
      expect(await (await openInBoot(dir, 'boot-2')).readyInboxes()).toEqual(['has-event', 'late']);
      expect(rebuiltBoots(dir)).toEqual(['boot-2']);
    });

    it('an index row ahead of its inbox (it kept a lowering whose unflushed inbox commit was lost) still comes down to the truth', async () => {
      const dir = stores.dir();
      const store = await openInBoot(dir, 'boot-1');
      expect(await store.inbox('claimed').ingest({ source: 's', sourceId: '1' })).toBe(true);
      await closeAll();
      const index = new Database(join(dir, READY_INDEX_FILE));
      // "Nothing to do", from a write_seq the inbox never reached.
      index.prepare("UPDATE wake SET wake_at = NULL, seq = 999, exact = 0 WHERE inbox_id = 'claimed'").run();
      index.close();
      expect(await (await openInBoot(dir, 'boot-1')).readyInboxes()).toEqual([]);
      await closeAll();
      expect(await (await openInBoot(dir, 'boot-2')).readyInboxes()).toEqual(['claimed']);
    });

    it('an index with no boot recorded (and no rows) is re-derived once, then not again in the same boot', async () => {
      const dir = stores.dir();
      await populate(await openInBoot(dir, 'boot-1'));
      await closeAll();
      const old = new Database(join(dir, READY_INDEX_FILE));
      old.exec('DELETE FROM rebuilt; DELETE FROM wake');
      old.close();
      const store = await openInBoot(dir, 'boot-1');
      expect(await store.readyInboxes()).toEqual(['has-event']);
      await closeAll();
      const index = new Database(join(dir, READY_INDEX_FILE));
      expect(index.prepare('SELECT boot FROM rebuilt').pluck().all()).toEqual(['boot-1']);
      index.exec('DELETE FROM wake');
      index.close();
      // Same boot: no second rebuild (a restart of the process loses nothing of the index).
      expect(await (await openInBoot(dir, 'boot-1')).readyInboxes()).toEqual([]);
    });

    it('an inbox file that cannot be read does not stop the open; the next open tries again', async () => {
      const dir = stores.dir();
      await populate(await openInBoot(dir, 'boot-1'));
      await closeAll();
      writeFileSync(join(dir, 'broken.db'), 'not a database, and long enough for SQLite to read a header from it'.repeat(10));
      const store = await openInBoot(dir, 'boot-2');
      expect(await store.readyInboxes()).toEqual(['has-event']);
      await closeAll();
      expect(rebuiltBoots(dir)).toEqual(['boot-1']); // not done for boot 2 yet
      rmSync(join(dir, 'broken.db'));
      await openInBoot(dir, 'boot-2');
      await closeAll();
      expect(rebuiltBoots(dir)).toEqual(['boot-2']);
    });
  });

  it('rebuildReadyIndex() leaves a live lease in charge: its events are listed only after it lapses', async () => {
    const dir = stores.dir();
    const first = await stores.open(dir, { leaseTtlMs: 1_000 });
    await first.store.inbox('leased').acquire('W');
    await first.store.inbox('leased').ingest({ source: 's', sourceId: '1' });
    await first.store.close();
    removeIndex(dir);
    const { store, clock } = await stores.open(dir, { leaseTtlMs: 1_000 });
    await sqliteBackendOf(store).rebuildReadyIndex();
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

    it('rebuildReadyIndex() restores it', async () => {
      const dir = stores.dir();
      const first = await stores.open(dir);
      await populateAttention(first.store);
      await first.store.close();
      removeIndex(dir);
      const { store } = await stores.open(dir);
      expect(await sqliteBackendOf(store).rebuildReadyIndex()).toBe(3);
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
