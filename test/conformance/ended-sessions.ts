/**
 * endSession / sessionEnded (contract.ts): a dashboard sign-out that holds
 * on every process sharing the store, survives closing and reopening it,
 * and is kept until the session's own expiry.
 */
import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError } from './helpers.js';

const HOUR = 3_600_000;

export function endedSessions(target: StoreTarget): void {
  describe(`ended sessions (${target.name})`, () => {
    const open = useStore(target);

    it('a session ended on one handle is ended on another, and after the store is closed and reopened', async () => {
      const { store, reopen } = await open();
      const other = await reopen();
      expect(await store.sessionEnded('a1b2c3d4e5f6')).toBe(false);
      await store.endSession('a1b2c3d4e5f6', T0 + 12 * HOUR);
      expect(await store.sessionEnded('a1b2c3d4e5f6')).toBe(true);
      expect(await other.sessionEnded('a1b2c3d4e5f6')).toBe(true);
      expect(await other.sessionEnded('000000000000')).toBe(false);
      await store.close();
      const later = await reopen();
      expect(await later.sessionEnded('a1b2c3d4e5f6')).toBe(true);
      // Ending it again, even with an earlier expiry, keeps it ended.
      await later.endSession('a1b2c3d4e5f6', T0 + HOUR);
      expect(await later.sessionEnded('a1b2c3d4e5f6')).toBe(true);
    });

    it('is kept until the session expires, then may be forgotten; one already expired is not kept', async () => {
      const { store, clock } = await open();
      await store.endSession('short', T0 + HOUR);
      await store.endSession('long', T0 + 12 * HOUR);
      clock.advance(HOUR - 1);
      await store.endSession('third', T0 + 12 * HOUR);
      expect(await store.sessionEnded('short')).toBe(true);
      clock.advance(1);
      // Forgetting happens with the next sign-out; the long one stays either way.
      await store.endSession('fourth', T0 + 12 * HOUR);
      expect(await store.sessionEnded('short')).toBe(false);
      expect(await store.sessionEnded('long')).toBe(true);
      await store.endSession('stale', T0);
      expect(await store.sessionEnded('stale')).toBe(false);
    });

    it('refuses a session id that is not a short string, and a time that is not an integer', async () => {
      const { store } = await open();
      await expectVigilError(store.endSession('', T0), 'invalid_argument');
      await expectVigilError(store.endSession('x'.repeat(129), T0), 'invalid_argument');
      await expectVigilError(store.endSession('s', 1.5), 'invalid_argument');
      await expectVigilError(store.sessionEnded(42 as unknown as string), 'invalid_argument');
      await expectVigilError(store.sessionEnded('\uD800'), 'invalid_argument');
    });
  });
}
