import { describe, expect, it, vi } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const TTL = 10_000;
const GAP = 60_000;

export function readyInboxes(target: StoreTarget): void {
  describe(`ready inboxes (${target.name})`, () => {
    const open = useStore(target);

    describe('nextWake', () => {
      it('says when the earliest inbox next needs a worker or a dispatcher, against the store clock', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, outboxGapMs: GAP });
        expect(await store.nextWake()).toEqual({ wakeAt: null, sendAt: null, now: T0 });
        await store.inbox('later').addTimer({ id: 't', due: T0 + 5_000 });
        await store.inbox('sooner').addTimer({ id: 't', due: T0 + 2_000 });
        expect(await store.nextWake()).toEqual({ wakeAt: T0 + 2_000, sendAt: null, now: T0 });
        clock.set(T0 + 2_000);
        await store.inbox('sooner').runScheduler(); // the timer became an event, claimable now
        expect((await store.nextWake()).wakeAt).toBeLessThanOrEqual(T0 + 2_000);
        const inbox = store.inbox('sooner');
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, batch.map((e) => e.id), { messages: ['hello'] });
        await inbox.release('W', gen);
        expect(await store.nextWake()).toEqual({ wakeAt: T0 + 5_000, sendAt: T0 + 2_000, now: T0 + 2_000 });
        await inbox.dispatch(() => undefined);
        expect((await store.nextWake()).sendAt).toBeNull();
      });
    });

    describe('readyInboxes', () => {
      it('lists an inbox once it has a claimable event, and not once its work is done', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        expect(await store.readyInboxes()).toEqual([]);
        const inbox = store.inbox('alice');
        await inbox.ingest({ source: 's', sourceId: '1' });
        await store.inbox('idle').addTimer({ id: 't', due: T0 + 1_000_000 });
        expect(await store.readyInboxes()).toEqual(['alice']);
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, batch.map((e) => e.id), { messages: ['reply'] });
        expect(await store.readyInboxes()).toEqual([]);
        clock.set(T0 + TTL + 1);
        expect(await store.readyInboxes()).toEqual([]);
      });

      it('while a lease is live its events are not listed; they are at until + 1, not at until', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await lease(inbox, 'W');
        await inbox.ingest({ source: 's', sourceId: '1' });
        expect(await store.readyInboxes()).toEqual([]);
        clock.set(T0 + TTL);
        expect(await store.readyInboxes()).toEqual([]);
        clock.set(T0 + TTL + 1);
        expect(await store.readyInboxes()).toEqual(['alice']);
      });

      it('after release the events are listed at once', async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        const gen = await lease(inbox, 'W');
        await inbox.ingest({ source: 's', sourceId: '1' });
        expect(await store.readyInboxes()).toEqual([]);
        await inbox.release('W', gen);
        expect(await store.readyInboxes()).toEqual(['alice']);
      });

      it('a worker that died holding claimed events makes its inbox ready at until + 1', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await inbox.ingest({ source: 's', sourceId: '1' });
        await inbox.claimBatch('W', await lease(inbox, 'W'));
        clock.set(T0 + TTL);
        expect(await store.readyInboxes()).toEqual([]);
        clock.set(T0 + TTL + 1);
        expect(await store.readyInboxes()).toEqual(['alice']);
      });

      it('a due timer is listed at due (not before), even while a lease is live', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await lease(inbox, 'W');
        await inbox.addTimer({ id: 't', due: T0 + 1_000 });
        clock.set(T0 + 999);
        expect(await store.readyInboxes()).toEqual([]);
        clock.set(T0 + 1_000);
        expect(await store.readyInboxes()).toEqual(['alice']);
      });

      it('an approval past its deadline with no answer is listed, even before the scheduler runs', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'a', expiresInMs: 5_000, action: 'x' });
        clock.set(T0 + 4_999);
        expect(await store.readyInboxes()).toEqual([]);
        clock.set(T0 + 5_000);
        expect(await store.readyInboxes()).toEqual(['alice']);
      });

      it('an answered approval is not listed at its deadline once its answer was handled', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'a', expiresInMs: 5_000, action: 'x' });
        await inbox.answerApproval('a', 'yes');
        expect(await store.readyInboxes()).toEqual(['alice']); // the answer is an event to handle
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, batch.map((e) => e.id));
        await inbox.release('W', gen);
        clock.set(T0 + 5_000);
        expect(await store.readyInboxes()).toEqual([]);
      });

      it('a failed event is listed again when its backoff has passed', async () => {
        const { store, clock } = await open({ retryBackoff: { baseMs: 1_000, maxMs: 1_000 } });
        const inbox = store.inbox('alice');
        await inbox.ingest({ source: 's', sourceId: '1' });
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, batch.map((e) => e.id), { error: 'flaky' });
        await inbox.release('W', gen);
        clock.set(T0 + 999);
        expect(await store.readyInboxes()).toEqual([]);
        clock.set(T0 + 1_000);
        expect(await store.readyInboxes()).toEqual(['alice']);
      });

      it('dead events do not make an inbox ready', async () => {
        const { store } = await open({ maxAttempts: 1 });
        const inbox = store.inbox('alice');
        await inbox.ingest({ source: 's', sourceId: '1' });
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, batch.map((e) => e.id), { error: 'poison' });
        await inbox.claimBatch('W', gen);
        await inbox.release('W', gen);
        expect((await inbox.stats()).events.dead).toBe(1);
        expect(await store.readyInboxes()).toEqual([]);
      });

      it('most overdue first, and limit caps the list', async () => {
        const { store, clock } = await open();
        await store.inbox('b').ingest({ source: 's', sourceId: '1' });
        clock.set(T0 + 10);
        await store.inbox('a').ingest({ source: 's', sourceId: '1' });
        clock.set(T0 + 20);
        await store.inbox('c').addTimer({ id: 't', due: T0 + 5 });
        expect(await store.readyInboxes()).toEqual(['b', 'c', 'a']); // wake at T0, T0 + 5, T0 + 10
        expect(await store.readyInboxes({ limit: 2 })).toEqual(['b', 'c']);
      });

      it('another handle on the same data sees the same ready inboxes', async () => {
        const { store, reopen } = await open();
        const other = await reopen();
        await store.inbox('alice').ingest({ source: 's', sourceId: '1' });
        expect(await other.readyInboxes()).toEqual(['alice']);
        const inbox = other.inbox('alice');
        const gen = await lease(inbox, 'W');
        const batch = await inbox.claimBatch('W', gen);
        await inbox.finish('W', gen, batch.map((e) => e.id));
        expect(await store.readyInboxes()).toEqual([]);
      });

      it.each([0, -1, 1.5, 10_001, '5'])('limit %s is invalid_argument', async (limit) => {
        const { store } = await open();
        await expectVigilError(store.readyInboxes({ limit: limit as never }), 'invalid_argument');
        await expectVigilError(store.dispatchableInboxes({ limit: limit as never }), 'invalid_argument');
      });
    });

    describe('dispatchableInboxes', () => {
      it('lists an inbox whose held messages may go now, and not after they went', async () => {
        const { store } = await open({ outboxGapMs: GAP });
        const inbox = store.inbox('alice');
        await inbox.ingest({ source: 's', sourceId: '1' });
        expect(await store.dispatchableInboxes()).toEqual([]);
        const gen = await lease(inbox, 'W');
        await inbox.finish('W', gen, [], { messages: ['hello'] });
        expect(await store.dispatchableInboxes()).toEqual(['alice']);
        await inbox.dispatch(() => undefined);
        expect(await store.dispatchableInboxes()).toEqual([]);
      });

      it('a paced message is listed at lastSend + gap, not 1 ms before; an urgent one at once', async () => {
        const { store, clock } = await open({ outboxGapMs: GAP, leaseTtlMs: 10 * GAP });
        const inbox = store.inbox('alice');
        const gen = await lease(inbox, 'W');
        await inbox.finish('W', gen, [], { messages: ['one'] });
        await inbox.dispatch(() => undefined); // paced at T0
        await inbox.finish('W', gen, [], { messages: ['two'] });
        clock.set(T0 + GAP - 1);
        expect(await store.dispatchableInboxes()).toEqual([]);
        await store.inbox('bob').finish('X', 1, [], { messages: ['nope'] }); // refused: no lease, nothing to send
        await inbox.finish('W', gen, [], { messages: [{ body: 'fire', urgent: true }] });
        expect(await store.dispatchableInboxes()).toEqual(['alice']);
        await inbox.dispatch(() => undefined); // the urgent one only
        expect(await store.dispatchableInboxes()).toEqual([]);
        clock.set(T0 + GAP);
        expect(await store.dispatchableInboxes()).toEqual(['alice']);
      });

      it('a batch in flight is not listed until its reservation lapses', async () => {
        const { store, clock } = await open({ outboxGapMs: GAP, leaseTtlMs: 5_000 });
        const inbox = store.inbox('alice');
        const gen = await lease(inbox, 'W');
        await inbox.finish('W', gen, [], { messages: ['one'] });
        let release!: () => void;
        const inFlight = inbox.dispatch(() => new Promise<void>((resolve) => (release = resolve)));
        await vi.waitFor(() => expect(release).toBeTypeOf('function'));
        expect(await store.dispatchableInboxes()).toEqual([]);
        clock.set(T0 + 5_001);
        expect(await store.dispatchableInboxes()).toEqual(['alice']);
        release();
        await inFlight;
        expect(await store.dispatchableInboxes()).toEqual([]);
      });
    });

    describe('subscribe', () => {
      it('calls the listener with the inbox id after an ingest, a timer, an approval and an answer', async () => {
        const { store } = await open();
        const seen: string[] = [];
        const stop = await store.subscribe((id) => seen.push(id));
        await store.inbox('a').ingest({ source: 's', sourceId: '1' });
        await vi.waitFor(() => expect(seen).toContain('a'));
        await store.inbox('b').addTimer({ id: 't', due: T0 });
        await vi.waitFor(() => expect(seen).toContain('b'));
        await store.inbox('c').requestApproval({ id: 'ap', expiresInMs: 10, action: 'x' });
        await vi.waitFor(() => expect(seen).toContain('c'));
        seen.length = 0;
        await store.inbox('c').answerApproval('ap', 'yes');
        await vi.waitFor(() => expect(seen).toContain('c'));
        await stop();
      });

      it('calls the listener after a redrive (the dead event is work again) and not after a redrive that changed nothing', async () => {
        const { store } = await open();
        const inbox = store.inbox('d');
        await inbox.ingest({ source: 's', sourceId: '1' });
        const gen = (await inbox.acquire('w')) as number;
        const [event] = await inbox.claimBatch('w', gen);
        await inbox.finish('w', gen, [event!.id], { error: 'poison', dead: true });
        await inbox.release('w', gen);
        const seen: string[] = [];
        const stop = await store.subscribe((id) => seen.push(id));
        expect(await inbox.redrive(event!.id + 1000)).toBe(false);
        expect(await inbox.redrive(event!.id)).toBe(true);
        await vi.waitFor(() => expect(seen).toEqual(['d']));
        await stop();
      });

      it('a stopped listener hears nothing more; others still do', async () => {
        const { store } = await open();
        const first: string[] = [];
        const second: string[] = [];
        const stopFirst = await store.subscribe((id) => first.push(id));
        const stopSecond = await store.subscribe((id) => second.push(id));
        await stopFirst();
        await store.inbox('a').ingest({ source: 's', sourceId: '1' });
        await vi.waitFor(() => expect(second).toContain('a'));
        expect(first).toEqual([]);
        await stopSecond();
      });

      it('a listener that throws does not fail the write', async () => {
        const { store } = await open();
        const stop = await store.subscribe(() => {
          throw new Error('listener bug');
        });
        expect(await store.inbox('a').ingest({ source: 's', sourceId: '1' })).toBe(true);
        expect(await store.inbox('a').getEvent('s', '1')).not.toBeNull();
        await stop();
      });
    });
  });
}
