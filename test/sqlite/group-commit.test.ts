/**
 * Single-event ingests that arrive together share one transaction (one
 * flush), and every caller still hears the truth about its own event.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { T0, useTempStores } from './temp-dirs.js';

describe('group commit of concurrent ingests (SQLite)', () => {
  const temp = useTempStores();

  /** A clock that counts its readings: the store reads it once per write transaction. */
  function countingClock() {
    let reads = 0;
    return { now: () => (reads++, T0), reads: () => reads };
  }

  it('200 ingests issued at once are stored in one transaction, each answered for itself', async () => {
    const dir = temp.dir();
    const clock = countingClock();
    const store = await openStore(`sqlite:${dir}`, { clock: clock.now });
    try {
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'before' }); // creates the file
      const readsBefore = clock.reads();
      const keys = Array.from({ length: 200 }, (_, i) => `k${i % 150}`); // 50 duplicates inside the group
      keys.push('before');
      const results = await Promise.all(keys.map((sourceId) => inbox.ingest({ source: 's', sourceId, payload: { sourceId } })));
      expect(clock.reads() - readsBefore).toBe(1);
      expect(results.slice(0, 150).every((stored) => stored)).toBe(true);
      expect(results.slice(150).some((stored) => stored)).toBe(false);
      expect((await inbox.stats()).events.pending).toBe(151);
    } finally {
      await store.close();
    }
  });

  it('groups per inbox: two inboxes at once are two transactions, neither waits for the other', async () => {
    const dir = temp.dir();
    const clock = countingClock();
    const store = await openStore(`sqlite:${dir}`, { clock: clock.now });
    try {
      const results = await Promise.all([
        ...['a', 'b', 'c'].map((sourceId) => store.inbox('alice').ingest({ source: 's', sourceId })),
        ...['a', 'b'].map((sourceId) => store.inbox('bob').ingest({ source: 's', sourceId })),
      ]);
      expect(results).toEqual([true, true, true, true, true]);
      expect((await store.inbox('alice').stats()).events.pending).toBe(3);
      expect((await store.inbox('bob').stats()).events.pending).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('a group that cannot commit fails every caller in it, and stores none of them', async () => {
    const dir = temp.dir();
    const store = await openStore(`sqlite:${dir}`);
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 's', sourceId: 'first' });
    const pending = ['x', 'y', 'z'].map((sourceId) => inbox.ingest({ source: 's', sourceId }));
    await store.close(); // before the group's turn comes
    for (const result of await Promise.allSettled(pending)) {
      expect(result).toMatchObject({ status: 'rejected', reason: { code: 'store_closed' } });
    }
    const reopened = await openStore(`sqlite:${dir}`);
    try {
      expect((await reopened.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['first']);
    } finally {
      await reopened.close();
    }
  });

  it('a bad event is refused on its own and does not sink the group it would have joined', async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir);
    const inbox = store.inbox('alice');
    const results = await Promise.allSettled([
      inbox.ingest({ source: 's', sourceId: 'ok-1' }),
      inbox.ingest({ source: 's', sourceId: '' }),
      inbox.ingest({ source: 's', sourceId: 'ok-2' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await inbox.events()).map((e) => e.sourceId)).toEqual(['ok-1', 'ok-2']);
  });

  it('an inbox taking bursts checkpoints every 4,000 WAL pages; one taking single ingests keeps SQLite\'s 1,000', async () => {
    const dir = temp.dir();
    const { store } = await temp.open(dir);
    const page = 4096 + 24; // a WAL frame: the page and its header
    const big = 'x'.repeat(3000); // about a page of its own per event
    // 30 bursts of 64 deliveries: ~2,000 frames, past 1,000 but short of 4,000.
    const burst = store.inbox('burst');
    for (let round = 0; round < 30; round++) {
      const results = await Promise.all(
        Array.from({ length: 64 }, (_, i) => burst.ingest({ source: 's', sourceId: `${round}-${i}`, payload: { big } })),
      );
      expect(results.every((stored) => stored)).toBe(true);
    }
    // The same ~2,000 frames, one delivery at a time.
    const single = store.inbox('single');
    for (let i = 0; i < 1920; i++) await single.ingest({ source: 's', sourceId: `${i}`, payload: { big } });
    const walPages = (id: string) => statSync(join(dir, `${id}.db-wal`)).size / page;
    expect(walPages('burst')).toBeGreaterThan(1500); // never checkpointed: the WAL still holds every frame
    expect(walPages('single')).toBeLessThan(1100); // reset after ~1,000 frames and reused
    expect((await burst.stats()).events.pending).toBe(1920);
    expect((await single.stats()).events.pending).toBe(1920);
  });
});
