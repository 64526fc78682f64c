/**
 * probeWrites (contract.ts): a write that belongs to no inbox, which a
 * health check makes to tell one inbox's trouble from the store's. On a
 * healthy store it succeeds, as often as asked, and leaves nothing an inbox
 * list, an inbox or a session check would see; a closed store refuses it.
 * (Where it fails: a read-only directory, test/service/health.test.ts; a
 * stopped database, test/faults/postgres-health.postgres.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError } from './helpers.js';

export function writeProbe(target: StoreTarget): void {
  describe(`write probe (${target.name})`, () => {
    const open = useStore(target);

    it('succeeds on a healthy store, again and again, and leaves nothing behind', async () => {
      const { store } = await open();
      await store.inbox('alice').ingest({ source: 'test', sourceId: 'e1', payload: {} });
      await store.endSession('a1b2c3d4e5f6', T0 + 60_000);
      await Promise.all([store.probeWrites(), store.probeWrites(), store.probeWrites()]);
      await store.probeWrites();
      expect(await store.inboxes()).toEqual(['alice']);
      expect((await store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['e1']);
      expect(await store.sessionEnded('a1b2c3d4e5f6')).toBe(true);
    });

    it('is store_closed after close', async () => {
      const { store } = await open();
      await store.close();
      await expectVigilError(store.probeWrites(), 'store_closed');
    });
  });
}
