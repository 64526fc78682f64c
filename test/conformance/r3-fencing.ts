import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease, statuses } from './helpers.js';

const TTL = 10_000;

export function r3Fencing(target: StoreTarget): void {
  describe(`R3 fencing (${target.name})`, () => {
    const open = useStore(target);

    it('claimBatch by a holder or gen without the lease claims nothing and changes nothing', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      expect(await inbox.claimBatch('A', 1)).toEqual([]); // nobody holds a lease yet
      await lease(inbox, 'A');
      expect(await inbox.claimBatch('B', 1)).toEqual([]);
      expect(await inbox.claimBatch('A', 2)).toEqual([]);
      expect(await inbox.events()).toMatchObject([{ sourceId: 'a', status: 'pending', attempts: 0 }]);
    });

    it('claimBatch works at `until` and is refused at until + 1', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL, batchLimit: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen = await lease(inbox, 'A');
      clock.set(T0 + TTL);
      expect(await inbox.claimBatch('A', gen)).toMatchObject([{ sourceId: 'a' }]);
      clock.set(T0 + TTL + 1);
      expect(await inbox.claimBatch('A', gen)).toEqual([]);
      expect(await inbox.events()).toMatchObject([
        { sourceId: 'a', status: 'running', attempts: 1 },
        { sourceId: 'b', status: 'pending', attempts: 0 },
      ]);
    });

    it('finish works at `until` and is refused at until + 1, leaving the event running and queueing nothing', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen = await lease(inbox, 'A');
      const [a, b] = await inbox.claimBatch('A', gen);
      clock.set(T0 + TTL);
      expect(await inbox.finish('A', gen, [a!.id], { messages: ['reply a'] })).toBe(true);
      clock.set(T0 + TTL + 1);
      expect(await inbox.finish('A', gen, [b!.id], { messages: ['reply b'] })).toBe(false);
      expect(await statuses(inbox)).toEqual({ a: 'done', b: 'running' });
      expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
    });

    it('a late finish from an older gen is refused after a takeover: no change, no message', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen1 = await lease(inbox, 'A');
      const [claimed] = await inbox.claimBatch('A', gen1);
      clock.set(T0 + TTL + 1);
      const gen2 = await lease(inbox, 'B');
      expect(gen2).toBe(gen1 + 1);
      // A wakes up and reports, after B took over but before B claimed.
      expect(await inbox.finish('A', gen1, [claimed!.id], { messages: ['stale reply'] })).toBe(false);
      expect(await inbox.events()).toMatchObject([{ status: 'running', attempts: 1 }]);
      // B claims it again (attempt 2) and finishes it; A's retry is still refused.
      const [again] = await inbox.claimBatch('B', gen2);
      expect(again).toMatchObject({ id: claimed!.id, attempts: 2 });
      expect(await inbox.finish('A', gen1, [claimed!.id], { messages: ['stale reply'] })).toBe(false);
      expect(await inbox.finish('B', gen2, [claimed!.id], { messages: ['fresh reply'] })).toBe(true);
      expect(await inbox.finish('A', gen1, [claimed!.id], { messages: ['stale reply'] })).toBe(false);
      const stats = await inbox.stats();
      expect(stats.events).toEqual({ pending: 0, running: 0, done: 1, dead: 0 });
      expect(stats.outbox.held).toBe(1);
      const bodies: string[] = [];
      await inbox.dispatch((body) => void bodies.push(body));
      expect(bodies).toEqual(['fresh reply']);
    });

    it('the same holder coming back in a new gen cannot finish what its old gen claimed', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen1 = await lease(inbox, 'A');
      const [claimed] = await inbox.claimBatch('A', gen1);
      clock.set(T0 + TTL + 1);
      const gen2 = await lease(inbox, 'A');
      expect(gen2).toBe(2);
      // The new gen holds the lease but did not claim the event: claim_gen decides.
      expect(await inbox.finish('A', gen2, [claimed!.id], { messages: ['x'] })).toBe(false);
      expect(await inbox.finish('A', gen1, [claimed!.id], { messages: ['x'] })).toBe(false);
      expect((await inbox.stats()).outbox.held).toBe(0);
      expect(await inbox.events()).toMatchObject([{ status: 'running' }]);
    });

    it('finish refuses ids that are not running: pending, done, unknown', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const pending = (await inbox.getEvent('s', 'a'))!;
      expect(await inbox.finish('A', gen, [pending.id])).toBe(false);
      expect(await inbox.finish('A', gen, [9_999])).toBe(false);
      await inbox.claimBatch('A', gen);
      expect(await inbox.finish('A', gen, [pending.id], { messages: ['once'] })).toBe(true);
      // A retried finish (lost response) must not queue the message twice.
      expect(await inbox.finish('A', gen, [pending.id], { messages: ['once'] })).toBe(false);
      expect((await inbox.stats()).outbox.held).toBe(1);
    });

    it('finish refuses the whole call if any one id is not running under this gen', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen = await lease(inbox, 'A');
      const [a, b] = await inbox.claimBatch('A', gen);
      expect(await inbox.finish('A', gen, [a!.id])).toBe(true);
      expect(await inbox.finish('A', gen, [a!.id, b!.id], { messages: ['both'] })).toBe(false);
      expect(await statuses(inbox)).toEqual({ a: 'done', b: 'running' });
      expect((await inbox.stats()).outbox.held).toBe(0);
      expect(await inbox.finish('A', gen, [b!.id, b!.id], { messages: ['b'] })).toBe(true); // repeated ids count once
      expect((await inbox.stats()).outbox.held).toBe(1);
    });

    it('finish with no ids queues messages for the lease holder only', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      const gen = await lease(inbox, 'A');
      expect(await inbox.finish('B', gen, [], { messages: ['intruder'] })).toBe(false);
      expect(await inbox.finish('A', gen + 1, [], { messages: ['wrong gen'] })).toBe(false);
      expect(await inbox.finish('A', gen, [], { messages: ['note'] })).toBe(true);
      expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
    });

    it('finish on an inbox that was never written is refused', async () => {
      const { store } = await open();
      expect(await store.inbox('ghost').finish('A', 1, [])).toBe(false);
      expect(await store.inbox('ghost').claimBatch('A', 1)).toEqual([]);
    });

    it('a fenced call through a second handle is refused the same way', async () => {
      const { store, reopen, clock } = await open({ leaseTtlMs: TTL });
      const other = await reopen();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen1 = await lease(inbox, 'A');
      const [claimed] = await inbox.claimBatch('A', gen1);
      clock.set(T0 + TTL + 1);
      const gen2 = await lease(other.inbox('alice'), 'B');
      expect(await other.inbox('alice').claimBatch('B', gen2)).toMatchObject([{ id: claimed!.id, attempts: 2 }]);
      expect(await inbox.finish('A', gen1, [claimed!.id], { messages: ['late'] })).toBe(false);
      expect(await other.inbox('alice').finish('B', gen2, [claimed!.id])).toBe(true);
      expect((await inbox.stats()).outbox.held).toBe(0);
    });

    it.each([
      ['gen 0', 'A', 0],
      ['gen 1.5', 'A', 1.5],
      ['a negative gen', 'A', -3],
      ['an empty holder', '', 1],
    ])('claimBatch and finish with %s are invalid_argument and change nothing', async (_what, holder, gen) => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      await lease(inbox, 'A');
      await expectVigilError(inbox.claimBatch(holder, gen), 'invalid_argument');
      await expectVigilError(inbox.finish(holder, gen, [1], { messages: ['x'] }), 'invalid_argument');
      expect(await inbox.events()).toMatchObject([{ status: 'pending', attempts: 0 }]);
      expect((await inbox.stats()).outbox.held).toBe(0);
    });
  });
}
