import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError } from './helpers.js';

const TTL = 10_000;

export function r2Lease(target: StoreTarget): void {
  describe(`R2 lease (${target.name})`, () => {
    const open = useStore(target);

    it('the store says how long its leases last (leaseTtlMs: 120 s unless opened with another)', async () => {
      expect((await open({ leaseTtlMs: TTL })).store.leaseTtlMs).toBe(TTL);
      expect((await open()).store.leaseTtlMs).toBe(120_000);
    });

    it('the first acquire gets gen 1 until now + leaseTtlMs', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      expect((await inbox.stats()).lease).toBeNull();
      expect(await inbox.acquire('A')).toBe(1);
      expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + TTL });
    });

    it('another holder gets null while the lease is valid, up to and including `until`', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await inbox.acquire('A');
      expect(await inbox.acquire('B')).toBeNull();
      clock.set(T0 + TTL); // until >= now: still valid
      expect(await inbox.acquire('B')).toBeNull();
      expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + TTL });
    });

    it('another holder takes over at until + 1 with gen + 1', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await inbox.acquire('A');
      clock.set(T0 + TTL + 1);
      expect(await inbox.acquire('B')).toBe(2);
      expect((await inbox.stats()).lease).toEqual({ holder: 'B', gen: 2, until: T0 + TTL + 1 + TTL });
      expect(await inbox.acquire('A')).toBeNull();
    });

    it('the same holder renews at `until` keeping its gen and extending until', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await inbox.acquire('A');
      clock.set(T0 + 500);
      expect(await inbox.acquire('A')).toBe(1);
      expect((await inbox.stats()).lease?.until).toBe(T0 + 500 + TTL);
      clock.set(T0 + 500 + TTL); // exactly at until
      expect(await inbox.acquire('A')).toBe(1);
      expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + 500 + 2 * TTL });
    });

    it('the same holder after its own expiry takes over with gen + 1 (its old claims are fenced off)', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await inbox.acquire('A');
      clock.set(T0 + TTL + 1);
      expect(await inbox.acquire('A')).toBe(2);
    });

    it('gen increments on every takeover and never goes back', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      const gens: (number | null)[] = [];
      for (const holder of ['A', 'B', 'A', 'C']) {
        gens.push(await inbox.acquire(holder));
        clock.advance(TTL + 1);
      }
      expect(gens).toEqual([1, 2, 3, 4]);
    });

    it('release ends the lease at once: the next acquire takes over with gen + 1 at the same instant', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      const gen = (await inbox.acquire('A')) as number;
      clock.advance(100);
      expect(await inbox.release('A', gen)).toBe(true);
      expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + 100 - 1 });
      expect(await inbox.acquire('B')).toBe(2);
    });

    it('after a release the same holder also starts a new gen', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await inbox.release('A', (await inbox.acquire('A')) as number);
      expect(await inbox.acquire('A')).toBe(2);
    });

    it('release refuses a holder or gen that does not hold the lease, and changes nothing', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      expect(await inbox.release('A', 1)).toBe(false); // no lease at all, not even a file
      await inbox.acquire('A');
      expect(await inbox.release('B', 1)).toBe(false);
      expect(await inbox.release('A', 2)).toBe(false);
      expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + TTL });
      clock.set(T0 + TTL); // valid at until: release works
      expect(await inbox.release('A', 1)).toBe(true);
      expect(await inbox.release('A', 1)).toBe(false); // already released
    });

    it('release of an expired lease is refused', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await inbox.acquire('A');
      clock.set(T0 + TTL + 1);
      expect(await inbox.release('A', 1)).toBe(false);
      expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + TTL });
    });

    it('a second handle on the same data sees the same lease', async () => {
      const { store, reopen, clock } = await open({ leaseTtlMs: TTL });
      const other = await reopen();
      expect(await store.inbox('alice').acquire('A')).toBe(1);
      expect(await other.inbox('alice').acquire('B')).toBeNull();
      clock.set(T0 + TTL + 1);
      expect(await other.inbox('alice').acquire('B')).toBe(2);
      expect(await store.inbox('alice').acquire('A')).toBeNull();
    });

    it('leases are per inbox', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      expect(await store.inbox('alice').acquire('A')).toBe(1);
      expect(await store.inbox('bob').acquire('B')).toBe(1);
    });

    it.each([
      ['an empty holder', ''],
      ['a holder over 256 characters', 'h'.repeat(257)],
      ['a non-string holder', 42],
    ])('acquire with %s is invalid_argument and stores nothing', async (_what, holder) => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await expectVigilError(inbox.acquire(holder as never), 'invalid_argument');
      await expectVigilError(inbox.release(holder as never, 1), 'invalid_argument');
      expect((await inbox.stats()).lease).toBeNull();
      expect(await store.inboxes()).toEqual([]);
    });

    it('a 256-character holder is fine', async () => {
      const { store } = await open();
      expect(await store.inbox('alice').acquire('h'.repeat(256))).toBe(1);
    });

    it.each([
      ['0', 0],
      ['-1', -1],
      ['1.5', 1.5],
      ['a string', '1'],
      ['NaN', Number.NaN],
    ])('release with gen %s is invalid_argument', async (_what, gen) => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await inbox.acquire('A');
      await expectVigilError(inbox.release('A', gen as never), 'invalid_argument');
      expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + TTL });
    });
  });
}
