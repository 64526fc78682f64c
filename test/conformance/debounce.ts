/**
 * Wake debounce (settings wake.debounceMs / maxWaitMs): a burst of events
 * becomes one run. readyInboxes() lists a debounced inbox once its newest
 * pending event is debounceMs old, or its oldest is maxWaitMs old, and not
 * a millisecond before; claimBatch is unaffected. The same on every store.
 */
import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { lease } from './helpers.js';

export function debounce(target: StoreTarget): void {
  describe(`wake debounce (${target.name})`, () => {
    const open = useStore(target);

    it('one event: listed at receivedAt + debounceMs, not 1 ms before', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ wake: { debounceMs: 1_000, maxWaitMs: 5_000 } });
      await inbox.ingest({ source: 'chat', sourceId: '1' });
      clock.set(T0 + 999);
      expect(await store.readyInboxes()).toEqual([]);
      clock.set(T0 + 1_000);
      expect(await store.readyInboxes()).toEqual(['alice']);
    });

    it('a burst moves it later with each event, until the oldest is maxWaitMs old', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ wake: { debounceMs: 1_000, maxWaitMs: 3_000 } });
      for (let i = 0; i < 3; i++) {
        clock.set(T0 + i * 800);
        await inbox.ingest({ source: 'chat', sourceId: String(i) }); // every 800 ms: the newest is never 1 s old
        clock.set(T0 + i * 800 + 799);
        expect(await store.readyInboxes()).toEqual([]);
      }
      clock.set(T0 + 2_999);
      await inbox.ingest({ source: 'chat', sourceId: 'late' });
      expect(await store.readyInboxes()).toEqual([]);
      clock.set(T0 + 3_000);
      expect(await store.readyInboxes()).toEqual(['alice']);
      const gen = await lease(inbox, 'W');
      expect((await inbox.claimBatch('W', gen)).map((e) => e.sourceId)).toEqual(['0', '1', '2', 'late']);
    });

    it('maxWaitMs defaults to ten times debounceMs', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ wake: { debounceMs: 100 } });
      for (let t = 0; t < 1_000; t += 50) {
        clock.set(T0 + t);
        await inbox.ingest({ source: 'chat', sourceId: String(t) });
      }
      clock.set(T0 + 999);
      expect(await store.readyInboxes()).toEqual([]);
      clock.set(T0 + 1_000);
      expect(await store.readyInboxes()).toEqual(['alice']);
    });

    it('claimBatch is unaffected: a worker that asks claims the burst at once', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ wake: { debounceMs: 60_000 } });
      await inbox.ingest({ source: 'chat', sourceId: '1' });
      expect(await store.readyInboxes()).toEqual([]);
      const gen = await lease(inbox, 'W');
      expect((await inbox.claimBatch('W', gen)).map((e) => e.sourceId)).toEqual(['1']);
    });

    it('settings that remove the debounce list a waiting inbox at once; other inboxes never wait', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ wake: { debounceMs: 60_000 } });
      await inbox.ingest({ source: 'chat', sourceId: '1' });
      await store.inbox('bob').ingest({ source: 'chat', sourceId: '1' });
      expect(await store.readyInboxes()).toEqual(['bob']);
      await inbox.updateSettings({ wake: null });
      expect((await store.readyInboxes()).sort()).toEqual(['alice', 'bob']);
    });
  });
}
