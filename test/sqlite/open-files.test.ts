/**
 * The bounded LRU of open inbox files: a store with many inboxes holds at
 * most maxOpenInboxes of them open (three descriptors each under WAL), and
 * an inbox whose file was closed by the LRU works exactly as before.
 */
import { describe, expect, it } from 'vitest';
import { openDescriptors, useTempStores } from './temp-dirs.js';

const stores = useTempStores();
const MAX_OPEN = 4;
/** db + -wal + -shm per open inbox, with a little room for the runtime's own. */
const BOUND = MAX_OPEN * 3 + 6;

describe('SQLite open-file LRU', () => {
  it('writing to 60 inboxes with maxOpenInboxes 4 keeps the descriptor count bounded, and no data is lost', async () => {
    const { store } = await stores.open(stores.dir(), { maxOpenInboxes: MAX_OPEN, synchronous: 'normal' });
    const baseline = openDescriptors();
    let peak = 0;
    for (let i = 0; i < 60; i++) {
      const inbox = store.inbox(`inbox-${i}`);
      expect(await inbox.ingest({ source: 's', sourceId: 'first', payload: { i } })).toBe(true);
      await inbox.addTimer({ id: 't', due: 0 });
      peak = Math.max(peak, openDescriptors() - baseline);
    }
    expect(peak).toBeLessThanOrEqual(BOUND);
    // A second round reopens every file; each still holds exactly what it was given.
    for (let i = 0; i < 60; i++) {
      const inbox = store.inbox(`inbox-${i}`);
      expect(await inbox.ingest({ source: 's', sourceId: 'first', payload: 'dup' })).toBe(false);
      expect(await inbox.events()).toMatchObject([{ sourceId: 'first', payload: { i } }]);
      expect(await inbox.runScheduler()).toBe(1);
      peak = Math.max(peak, openDescriptors() - baseline);
    }
    expect(peak).toBeLessThanOrEqual(BOUND);
    expect(await store.inboxes()).toHaveLength(60);
  });

  it("a page of dispatchableInboxes lists the inboxes whose files are open first, so a pass over it reaches them before the LRU closes them", async () => {
    const { store, clock } = await stores.open(stores.dir(), { maxOpenInboxes: 2 });
    // Queued one millisecond apart: a, b, c, d may send in that order; c and d were used last, so their files are open.
    for (const id of ['a', 'b', 'c', 'd']) {
      const inbox = store.inbox(id);
      const gen = (await inbox.acquire('W')) as number;
      await inbox.finish('W', gen, [], { messages: [`to ${id}`] });
      await inbox.release('W', gen);
      clock.advance(1);
    }
    expect(await store.dispatchableInboxes({ limit: 10 })).toEqual(['c', 'd', 'a', 'b']);
    // Which inboxes a page holds is still the earliest to send.
    expect(await store.dispatchableInboxes({ limit: 2 })).toEqual(['a', 'b']);
    let sent = 0;
    for (const id of await store.dispatchableInboxes({ limit: 10 })) sent += await store.inbox(id).dispatch(() => undefined);
    expect(sent).toBe(4);
    expect(await store.dispatchableInboxes({ limit: 10 })).toEqual([]);
  });

  it('closing the store releases every descriptor it opened', async () => {
    const before = openDescriptors();
    const { store } = await stores.open(stores.dir(), { maxOpenInboxes: MAX_OPEN });
    for (let i = 0; i < 10; i++) await store.inbox(`i${i}`).ingest({ source: 's', sourceId: '1' });
    expect(openDescriptors()).toBeGreaterThan(before);
    await store.close();
    expect(openDescriptors()).toBe(before);
  });

  it('an Inbox object outlives the eviction of its file: lease, claim and finish carry on', async () => {
    const { store } = await stores.open(stores.dir(), { maxOpenInboxes: 2 });
    const alice = store.inbox('alice');
    await alice.ingest({ source: 's', sourceId: '1' });
    const gen = (await alice.acquire('W')) as number;
    const [event] = await alice.claimBatch('W', gen);
    for (let i = 0; i < 5; i++) await store.inbox(`other-${i}`).ingest({ source: 's', sourceId: '1' });
    expect(await alice.finish('W', gen, [event!.id], { messages: ['reply'] })).toBe(true);
    expect((await alice.stats()).outbox.held).toBe(1);
  });

  it('a dispatch whose file is evicted while send is awaited still records the send', async () => {
    const { store } = await stores.open(stores.dir(), { maxOpenInboxes: 2 });
    const alice = store.inbox('alice');
    const gen = (await alice.acquire('W')) as number;
    await alice.finish('W', gen, [], { messages: ['one'] });
    const sent = await alice.dispatch(async () => {
      for (let i = 0; i < 5; i++) await store.inbox(`other-${i}`).ingest({ source: 's', sourceId: '1' });
    });
    expect(sent).toBe(1);
    expect((await alice.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  });

  it('a dispatch whose file is evicted while a failing send is awaited puts the messages back', async () => {
    const { store } = await stores.open(stores.dir(), { maxOpenInboxes: 2 });
    const alice = store.inbox('alice');
    const gen = (await alice.acquire('W')) as number;
    await alice.finish('W', gen, [], { messages: ['one'] });
    await expect(
      alice.dispatch(async () => {
        for (let i = 0; i < 5; i++) await store.inbox(`other-${i}`).ingest({ source: 's', sourceId: '1' });
        throw new Error('channel down');
      }),
    ).rejects.toThrow('channel down');
    expect((await alice.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
    expect(await alice.dispatch(() => undefined)).toBe(1);
  });
});
