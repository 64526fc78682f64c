import { describe, expect, it } from 'vitest';
import { VigilError, type Inbox } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

/** Everything an inbox shows through the contract, for before/after comparisons. */
async function snapshot(inbox: Inbox): Promise<unknown> {
  return { events: await inbox.events({ limit: 10_000 }), timers: await inbox.timers(), stats: await inbox.stats() };
}

export function r10Atomicity(target: StoreTarget): void {
  describe(`R10 atomicity (${target.name})`, () => {
    const open = useStore(target);

    it('a true from ingest is durable: a new handle sees it, and so does one opened after close', async () => {
      const { store, reopen } = await open();
      expect(await store.inbox('alice').ingest({ source: 's', sourceId: '1', payload: { v: 1 } })).toBe(true);
      const other = await reopen();
      expect(await other.inbox('alice').getEvent('s', '1')).toMatchObject({ payload: { v: 1 }, status: 'pending' });
      await store.close();
      const third = await reopen();
      expect(await third.inbox('alice').getEvent('s', '1')).toMatchObject({ payload: { v: 1 } });
    });

    it('ingestMany with one bad event in the middle stores none of the batch', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'before' });
      const before = await snapshot(inbox);
      await expectVigilError(
        inbox.ingestMany([
          { source: 's', sourceId: 'a' },
          { source: 's', sourceId: '' },
          { source: 's', sourceId: 'b' },
        ]),
        'invalid_event',
      );
      expect(await snapshot(inbox)).toEqual(before);
    });

    it('finish with one bad message stores no message and changes no event', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'a' });
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      const before = await snapshot(inbox);
      await expectVigilError(inbox.finish('A', gen, [a!.id], { messages: ['good', { body: 'bad', urgent: 'very' as never }] }), 'invalid_argument');
      expect(await snapshot(inbox)).toEqual(before);
    });

    it('a refused finish changes nothing at all', async () => {
      const { store, clock } = await open({ leaseTtlMs: 1_000 });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'a' });
      await inbox.ingest({ source: 's', sourceId: 'b' });
      const gen = await lease(inbox, 'A');
      const [a, b] = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, [b!.id]);
      const before = await snapshot(inbox);
      expect(await inbox.finish('A', gen, [a!.id, b!.id], { messages: ['x'] })).toBe(false);
      expect(await inbox.finish('A', gen, [a!.id, b!.id], { error: 'y' })).toBe(false);
      clock.advance(1_001);
      expect(await inbox.finish('A', gen, [a!.id], { messages: ['x'] })).toBe(false);
      expect(await snapshot(inbox)).toEqual(before);
    });

    it('a thrown send leaves the outbox exactly as it was: held, and still dispatchable at once', async () => {
      const { store } = await open({ outboxGapMs: 60_000 });
      const inbox = store.inbox('alice');
      const gen = await lease(inbox, 'A');
      await inbox.finish('A', gen, [], { messages: ['a', { body: 'b', urgent: true }] });
      const before = await snapshot(inbox);
      expect(await store.dispatchableInboxes()).toEqual(['alice']);
      await expect(
        inbox.dispatch(() => {
          throw new Error('smtp 451');
        }),
      ).rejects.toThrow('smtp 451');
      expect(await snapshot(inbox)).toEqual(before);
      expect(await store.dispatchableInboxes()).toEqual(['alice']);
    });

    it('a rejected call of every kind stores nothing', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'a' });
      await inbox.addTimer({ id: 't', due: T0 + 10 });
      await inbox.requestApproval({ id: 'ap', expiresInMs: 100, action: 'x' });
      const gen = await lease(inbox, 'A');
      const before = await snapshot(inbox);
      const rejected: Promise<unknown>[] = [
        inbox.ingest({ source: 's', sourceId: 'b', payload: Symbol('x') as never }),
        inbox.ingestMany([{ source: 's', sourceId: 'c' }, null as never]),
        inbox.acquire(''),
        inbox.release('A', 0),
        inbox.claimBatch('A', 1.5),
        inbox.finish('A', gen, [1], 'done' as never),
        inbox.addTimer({ id: 't', due: T0, every: -5 }),
        inbox.removeTimer(''),
        inbox.requestApproval({ id: 'ap2', expiresInMs: 0, action: 'x' }),
        inbox.answerApproval('ap', 'perhaps' as never),
        inbox.dispatch(null as never),
        inbox.redrive(-1),
        inbox.events({ limit: 0 }),
      ];
      for (const call of rejected) {
        await expect(call).rejects.toBeInstanceOf(VigilError);
      }
      expect(await snapshot(inbox)).toEqual(before);
    });

    it('a clock that returns a fractional time fails every write and stores nothing', async () => {
      let now = T0;
      let broken = false;
      const { store } = await open({ clock: () => (broken ? now + 0.5 : now) });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'a' });
      await inbox.requestApproval({ id: 'ap', expiresInMs: 100, action: 'x' });
      await inbox.addTimer({ id: 't', due: T0 + 10 });
      const gen = await lease(inbox, 'A');
      now = T0 + 50;
      const before = await snapshot(inbox);
      broken = true;
      const writes: (() => Promise<unknown>)[] = [
        () => inbox.ingest({ source: 's', sourceId: 'b' }),
        () => inbox.ingestMany([{ source: 's', sourceId: 'c' }]),
        () => inbox.acquire('B'),
        () => inbox.claimBatch('A', gen),
        () => inbox.finish('A', gen, [], { messages: ['m'] }),
        () => inbox.addTimer({ id: 'u', due: T0 }),
        () => inbox.runScheduler(),
        () => inbox.requestApproval({ id: 'ap2', expiresInMs: 100, action: 'x' }),
        () => inbox.answerApproval('ap', 'yes'),
        () => inbox.release('A', gen),
      ];
      for (const write of writes) {
        await expect(write()).rejects.toBeInstanceOf(VigilError);
      }
      broken = false;
      expect(await snapshot(inbox)).toEqual(before);
    });
  });
}
