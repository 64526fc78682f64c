/**
 * The writer thread (StoreOptions.writerThread): ingests commit on another
 * thread, so a commit that waits (for the disk, or for another writer's
 * lock) leaves the event loop free; each caller still hears its own result
 * after the commit, errors keep their codes across the thread, and the
 * thread reads the same clock as the store.
 */
import Database from 'better-sqlite3';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createFakeClock, openStore } from '../../src/index.js';
import { sqliteBackendOf } from '../../src/store/sqlite/sqlite-store.js';
import { WRITER_OPEN_INBOXES } from '../../src/store/sqlite/writer-thread.js';
import { T0, useTempStores } from './temp-dirs.js';

describe('the SQLite writer thread', () => {
  const temp = useTempStores();

  it('an ingest waiting for the inbox file\'s write lock leaves the event loop free, and is stored once the lock is let go', async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir, { writerThread: true, busyTimeoutMs: 20_000 });
    const inbox = store.inbox('alice');
    expect(await inbox.ingest({ source: 's', sourceId: 'first' })).toBe(true);

    // Another writer (a second process, here a connection of the test's own) holds the file's write lock.
    const other = new Database(join(dir, 'alice.db'));
    other.exec('BEGIN IMMEDIATE');
    let answered = false;
    const waiting = inbox.ingest({ source: 's', sourceId: 'second' }).finally(() => (answered = true));
    // Timers fire while the commit waits: on the calling thread, SQLite's busy wait would hold the event loop
    // until busyTimeoutMs, and the lock below would never be let go.
    let ticks = 0;
    for (let i = 0; i < 10; i++) {
      await sleep(20);
      ticks += 1;
    }
    expect(ticks).toBe(10);
    expect(answered).toBe(false);
    other.exec('ROLLBACK');
    other.close();
    expect(await waiting).toBe(true);
    expect((await inbox.events()).map((e) => e.sourceId)).toEqual(['first', 'second']);
  });

  it('a group that waited past busyTimeoutMs is refused with store_busy, code and all, and nothing of it is stored', async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir, { writerThread: true, busyTimeoutMs: 50 });
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 's', sourceId: 'first' });
    const other = new Database(join(dir, 'alice.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const results = await Promise.allSettled(['a', 'b'].map((sourceId) => inbox.ingest({ source: 's', sourceId })));
      for (const result of results) expect(result).toMatchObject({ status: 'rejected', reason: { name: 'VigilError', code: 'store_busy', retryable: true } });
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect((await inbox.events()).map((e) => e.sourceId)).toEqual(['first']);
  });

  it('each caller of a group hears about its own event; ingestMany goes through the thread too', async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir, { writerThread: true });
    const inbox = store.inbox('alice');
    const keys = Array.from({ length: 100 }, (_, i) => `k${i % 80}`); // 20 duplicates within the group
    const results = await Promise.all(keys.map((sourceId) => inbox.ingest({ source: 's', sourceId })));
    expect(results.slice(0, 80).every((stored) => stored)).toBe(true);
    expect(results.slice(80).some((stored) => stored)).toBe(false);
    expect(sqliteBackendOf(store).groupCommits()).toEqual({ commits: 1, events: 100 });
    expect(await inbox.ingestMany([{ source: 's', sourceId: 'k1' }, { source: 's', sourceId: 'new' }])).toEqual([false, true]);
    expect((await inbox.stats()).events.pending).toBe(81);
  });

  it("a group's events reach the thread exactly as given: keys and payloads of any text, an escaped NUL in a string, every JSON value", async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir, { writerThread: true });
    const inbox = store.inbox('alice');
    // One group, packed into one string with NUL between the fields (writer-protocol.ts, packEvents).
    const payloads: unknown[] = [{ text: 'a\u0000b' }, { emoji: '😀 über', nested: [{ '': null }] }, null, '', 0, [], 'x\u0000', { '\u0000': 1 }];
    const events = payloads.map((payload, i) => ({ source: i % 2 === 0 ? 'gïthub' : 's', sourceId: `ü-${i}-😀`, payload }));
    expect(await Promise.all(events.map((event) => inbox.ingest(event)))).toEqual(events.map(() => true));
    expect(sqliteBackendOf(store).groupCommits()).toEqual({ commits: 1, events: events.length });
    const stored = await inbox.events();
    expect(stored.map((e) => ({ source: e.source, sourceId: e.sourceId, payload: e.payload }))).toEqual(events);
  });

  it('the thread reads the fake clock the store was given: receivedAt is its time at the commit', async () => {
    const dir = temp.dir();
    const { store, clock } = await temp.open(dir, { writerThread: true });
    expect(sqliteBackendOf(store).threaded).toBe(true);
    clock.set(T0 + 12_345);
    await store.inbox('alice').ingest({ source: 's', sourceId: 'a' });
    clock.advance(1_000);
    await store.inbox('alice').ingest({ source: 's', sourceId: 'b' });
    expect((await store.inbox('alice').events()).map((e) => e.receivedAt)).toEqual([T0 + 12_345, T0 + 13_345]);
  });

  it('with a clock function the thread cannot read, ingests commit on the calling thread, on that clock', async () => {
    const dir = temp.dir();
    const store = await openStore(`sqlite:${dir}`, { writerThread: true, clock: () => T0 + 7 });
    try {
      expect(sqliteBackendOf(store).threaded).toBe(false);
      await store.inbox('alice').ingest({ source: 's', sourceId: 'a' });
      expect((await store.inbox('alice').events())[0]?.receivedAt).toBe(T0 + 7);
    } finally {
      await store.close();
    }
  });

  it('close() lets the commits already sent finish: every ingest is answered, and each true is in the file', async () => {
    const dir = temp.dir();
    const store = await openStore(`sqlite:${dir}`, { writerThread: true, clock: createFakeClock(T0).now });
    const inbox = store.inbox('alice');
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const pending = Promise.allSettled(keys.map((sourceId) => inbox.ingest({ source: 's', sourceId })));
    // The group commit flushes on setImmediate; one queued after it runs once the first group is on its
    // way to the thread (a setTimeout(0) may run before it, and close() then finds nothing sent).
    await new Promise((resolve) => setImmediate(resolve));
    const more = Promise.allSettled(keys.map((sourceId) => inbox.ingest({ source: 's', sourceId: `late-${sourceId}` })));
    await store.close();
    const settled = [...(await pending), ...(await more)];
    const stored = new Set<string>();
    settled.forEach((result, i) => {
      const key = i < keys.length ? keys[i]! : `late-${keys[i - keys.length]!}`;
      if (result.status === 'fulfilled') {
        expect(result.value).toBe(true);
        stored.add(key);
      } else {
        expect(result.reason).toMatchObject({ code: 'store_closed' });
      }
    });
    expect(stored.size).toBeGreaterThan(0);
    const db = new Database(join(dir, 'alice.db'), { readonly: true });
    try {
      const rows = new Set(db.prepare('SELECT source_id FROM events').pluck().all() as string[]);
      expect(rows).toEqual(stored);
    } finally {
      db.close();
    }
  });

  it('the rules that open a file hold on the thread too: an id that differs from an existing one only in case is refused with its code', async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir, { writerThread: true });
    await store.inbox('Alice').ingest({ source: 's', sourceId: 'a' });
    await expect(store.inbox('alice').ingest({ source: 's', sourceId: 'a' })).rejects.toMatchObject({ name: 'VigilError', code: 'invalid_inbox_id' });
  });

  it('two stores of one process share the thread, each on its own directory and clock', async () => {
    const [a, b] = [temp.dir(), temp.dir()];
    const first = await temp.open(a, { writerThread: true });
    const second = await temp.open(b, { writerThread: true });
    second.clock.set(T0 + 99);
    await Promise.all([
      first.store.inbox('alice').ingest({ source: 's', sourceId: 'one' }),
      second.store.inbox('alice').ingest({ source: 's', sourceId: 'two' }),
    ]);
    expect((await first.store.inbox('alice').events()).map((e) => [e.sourceId, e.receivedAt])).toEqual([['one', T0]]);
    expect((await second.store.inbox('alice').events()).map((e) => [e.sourceId, e.receivedAt])).toEqual([['two', T0 + 99]]);
  });
  it('the thread keeps at most WRITER_OPEN_INBOXES inbox files open, fewer than the store\'s maxOpenInboxes, and a file it closed takes ingests as before', async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir, { writerThread: true, maxOpenInboxes: 128, synchronous: 'normal' });
    const inboxes = WRITER_OPEN_INBOXES + 16;
    for (let i = 0; i < inboxes; i++) expect(await store.inbox(`inbox-${i}`).ingest({ source: 's', sourceId: 'first' })).toBe(true);
    // Ingests open files on the thread only; each open file holds one descriptor on its .db.
    const openDb = readdirSync('/proc/self/fd').filter((fd) => {
      try {
        const target = readlinkSync(`/proc/self/fd/${fd}`);
        return target.startsWith(dir) && /inbox-\d+\.db$/.test(target);
      } catch {
        return false;
      }
    });
    expect(openDb.length).toBeLessThanOrEqual(WRITER_OPEN_INBOXES);
    expect(openDb.length).toBeGreaterThan(0);
    for (let i = 0; i < inboxes; i++) {
      const inbox = store.inbox(`inbox-${i}`);
      expect(await inbox.ingest({ source: 's', sourceId: 'first' })).toBe(false);
      expect(await inbox.ingest({ source: 's', sourceId: 'second' })).toBe(true);
      expect((await inbox.events()).map((e) => e.sourceId)).toEqual(['first', 'second']);
    }
  });
});
