/**
 * A run's steps in one transaction each (contract.ts): acquireAndClaim is
 * R2 then R4, finishAndClaim is R3/R5 then R4 under the renewed lease; both
 * release the lease when the run has nothing left. Each must leave exactly
 * what the separate calls (acquire, claimBatch, finish, release) would.
 */
import { describe, expect, it } from 'vitest';
import type { RuntimeEventMap } from '../../src/events.js';
import type { Store, WakeKind } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease, statuses } from './helpers.js';

const TTL = 100_000;
const BASE = 1_000;

function deadEvents(store: Store): RuntimeEventMap['events:dead'][] {
  const seen: RuntimeEventMap['events:dead'][] = [];
  store.events.on('events:dead', (payload) => seen.push(payload));
  return seen;
}

export function runSteps(target: StoreTarget): void {
  describe(`run steps: acquireAndClaim, finishAndClaim (${target.name})`, () => {
    const open = useStore(target);

    describe('acquireAndClaim', () => {
      it('takes the lease and claims under it: the generation acquire would give, the batch claimBatch would', async () => {
        const { store } = await open({ leaseTtlMs: TTL, batchLimit: 2 });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a', 'b', 'c');
        const run = await inbox.acquireAndClaim('A');
        expect(run?.gen).toBe(1);
        expect(run?.events.map((e) => [e.sourceId, e.attempts, e.payload])).toEqual([
          ['a', 1, { n: 'a' }],
          ['b', 1, { n: 'b' }],
        ]);
        expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen: 1, until: T0 + TTL });
        expect(await statuses(inbox)).toEqual({ a: 'running', b: 'running', c: 'pending' });
        expect(await inbox.acquire('B')).toBeNull(); // held
        expect((await inbox.claimBatch('A', 1)).map((e) => e.sourceId)).toEqual(['c']); // the same lease goes on
      });

      it('a claim under the new lease lists the inbox for its timers and approvals that fall due first, and for its events at until + 1', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        const [alice, bob] = [store.inbox('alice'), store.inbox('bob')];
        await ingestAll(alice, 'a', 'b');
        await alice.addTimer({ id: 't', due: T0 + 3_000 });
        await ingestAll(bob, 'c');
        await bob.requestApproval({ id: 'ok', expiresInMs: 4_000, action: 'refund' });
        await alice.acquireAndClaim('A');
        await bob.acquireAndClaim('B');
        expect((await store.nextWake()).wakeAt).toBe(T0 + 3_000); // alice's timer
        clock.set(T0 + 3_000);
        expect(await store.readyInboxes()).toEqual(['alice']);
        clock.set(T0 + 4_000);
        expect((await store.readyInboxes()).sort()).toEqual(['alice', 'bob']); // and bob's approval expires
        await alice.runScheduler(); // each becomes an event: pending, behind the live lease
        await bob.runScheduler();
        expect(await store.readyInboxes()).toEqual([]);
        expect((await store.nextWake()).wakeAt).toBe(T0 + TTL + 1); // the events, when the leases lapse
      });

      it("null while another holder's lease is valid, and nothing changes", async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a');
        const gen = await lease(inbox, 'A');
        expect(await inbox.acquireAndClaim('B')).toBeNull();
        expect(await statuses(inbox)).toEqual({ a: 'pending' });
        expect((await inbox.stats()).lease).toEqual({ holder: 'A', gen, until: T0 + TTL });
      });

      it('with nothing to claim, the lease is released in the same call: the next holder takes over at once', async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 't', due: T0 + 1_000_000 }); // the inbox exists, with no event
        const run = await inbox.acquireAndClaim('A');
        expect(run).toEqual({ gen: 1, events: [] });
        expect((await inbox.stats()).lease!.until).toBeLessThan(T0);
        expect(await inbox.acquire('B')).toBe(2);
      });

      it('a renewal by the holder in the middle of its run claims what is new and keeps the lease while its events run', async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a');
        const first = await inbox.acquireAndClaim('A');
        expect(await inbox.acquireAndClaim('A')).toEqual({ gen: first!.gen, events: [] });
        expect(await inbox.acquire('B')).toBeNull(); // still A's
        await ingestAll(inbox, 'b');
        expect((await inbox.acquireAndClaim('A'))?.events.map((e) => e.sourceId)).toEqual(['b']);
      });

      it('a takeover puts the events an older generation left running back, and claims them (R4)', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a');
        const acquired: RuntimeEventMap['lease:acquired'][] = [];
        store.events.on('lease:acquired', (payload) => acquired.push(payload));
        await inbox.acquireAndClaim('A'); // A dies holding it
        clock.advance(TTL + 1);
        const run = await inbox.acquireAndClaim('B');
        expect(run?.gen).toBe(2);
        expect(run?.events.map((e) => [e.sourceId, e.attempts])).toEqual([['a', 2]]);
        expect(acquired).toEqual([
          { inboxId: 'alice', gen: 1, takeover: false },
          { inboxId: 'alice', gen: 2, takeover: true },
        ]);
        expect(await inbox.finish('A', 1, [run!.events[0]!.id], {})).toBe(false); // R3: A is fenced out
      });

      it('events:dead for what its claim parks after too many attempts', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, maxAttempts: 1 });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'poison');
        const dead = deadEvents(store);
        await inbox.acquireAndClaim('A'); // A dies: the one attempt is used up
        clock.advance(TTL + 1);
        expect(await inbox.acquireAndClaim('B')).toEqual({ gen: 2, events: [] });
        expect(dead.map((e) => e.events.map((d) => [d.sourceId, d.attempts]))).toEqual([[['poison', 1]]]);
        expect(await statuses(inbox)).toEqual({ poison: 'dead' });
      });

      it('an invalid holder is invalid_argument, and nothing is created', async () => {
        const { store } = await open();
        await expectVigilError(store.inbox('alice').acquireAndClaim(''), 'invalid_argument');
        expect(await store.inboxes()).toEqual([]);
      });
    });

    describe('finishAndClaim', () => {
      it('finishes, then claims the next batch under the same generation, its lease renewed', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, batchLimit: 2 });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a', 'b', 'c');
        const run = (await inbox.acquireAndClaim('A'))!;
        clock.advance(5_000);
        const next = await inbox.finishAndClaim('A', run.gen, run.events.map((e) => e.id), { messages: ['done a, b'] });
        expect(next.finished).toBe(true);
        expect(next.events.map((e) => [e.sourceId, e.attempts])).toEqual([['c', 1]]);
        expect(await statuses(inbox)).toEqual({ a: 'done', b: 'done', c: 'running' });
        const stats = await inbox.stats();
        expect(stats.lease).toEqual({ holder: 'A', gen: run.gen, until: T0 + 5_000 + TTL });
        expect(stats.outbox.held).toBe(1);
      });

      it('with nothing left, the lease is released in the same call: the next holder takes over at once', async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a');
        const run = (await inbox.acquireAndClaim('A'))!;
        expect(await inbox.finishAndClaim('A', run.gen, [run.events[0]!.id], { messages: ['hi'] })).toEqual({ finished: true, events: [] });
        expect(await statuses(inbox)).toEqual({ a: 'done' });
        expect((await inbox.stats()).lease!.until).toBeLessThan(T0);
        expect(await inbox.acquire('B')).toBe(run.gen + 1);
        expect(await store.readyInboxes()).toEqual([]); // nothing left to do
      });

      it('after a takeover by acquire alone, an empty finish puts back what the old generation left running, and claims it', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, retryBackoff: { baseMs: BASE } });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a');
        await inbox.acquireAndClaim('A'); // a runs under generation 1, whose worker then stops
        clock.set(T0 + TTL + 1);
        const gen = (await inbox.acquire('B'))!; // generation 2: a takeover, nothing claimed yet
        expect(await statuses(inbox)).toEqual({ a: 'running' });
        const next = await inbox.finishAndClaim('B', gen, [], {});
        expect(next.finished).toBe(true);
        expect(next.events.map((e) => [e.sourceId, e.attempts])).toEqual([['a', 2]]);
        expect(await statuses(inbox)).toEqual({ a: 'running' });
        expect((await inbox.stats()).lease).toEqual({ holder: 'B', gen, until: T0 + TTL + 1 + TTL });
      });

      it('a part of the batch: the lease stays while the rest of its events run', async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a', 'b');
        const run = (await inbox.acquireAndClaim('A'))!;
        const [a, b] = run.events;
        expect(await inbox.finishAndClaim('A', run.gen, [a!.id], { error: 'screened out', dead: true })).toEqual({ finished: true, events: [] });
        expect(await inbox.acquire('B')).toBeNull(); // still A's: b is running
        expect(await inbox.finishAndClaim('A', run.gen, [b!.id], {})).toEqual({ finished: true, events: [] });
        expect(await inbox.acquire('B')).toBe(run.gen + 1);
      });

      it('R5: an error puts the events back; the retry waits for its backoff while new events are claimed around it', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, retryBackoff: { baseMs: BASE, maxMs: 60_000 } });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a');
        const run = (await inbox.acquireAndClaim('A'))!;
        await ingestAll(inbox, 'b');
        const next = await inbox.finishAndClaim('A', run.gen, [run.events[0]!.id], { error: 'boom' });
        expect(next.events.map((e) => [e.sourceId, e.attempts])).toEqual([['b', 1]]);
        expect((await inbox.stats()).outbox.held).toBe(0); // R5: no message for a failed run
        const after = await inbox.finishAndClaim('A', run.gen, [next.events[0]!.id], {});
        expect(after).toEqual({ finished: true, events: [] }); // a's backoff has not passed: nothing to claim, released
        clock.advance(BASE);
        expect(await store.readyInboxes()).toEqual(['alice']);
        const retry = await inbox.acquireAndClaim('A');
        expect(retry?.events.map((e) => [e.sourceId, e.attempts])).toEqual([['a', 2]]);
      });

      it('R3: refused for a lost lease, another generation, or events not this run\'s running ones; nothing changes, nothing is claimed', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, batchLimit: 1 });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a', 'b');
        const run = (await inbox.acquireAndClaim('A'))!;
        const id = run.events[0]!.id;
        const refused = { finished: false, events: [] };
        expect(await inbox.finishAndClaim('A', run.gen + 1, [id], { messages: ['x'] })).toEqual(refused);
        expect(await inbox.finishAndClaim('B', run.gen, [id], { messages: ['x'] })).toEqual(refused);
        expect(await inbox.finishAndClaim('A', run.gen, [id + 1_000], { messages: ['x'] })).toEqual(refused);
        expect(await statuses(inbox)).toEqual({ a: 'running', b: 'pending' });
        clock.advance(TTL + 1);
        expect(await inbox.finishAndClaim('A', run.gen, [id], { messages: ['x'] })).toEqual(refused);
        const stats = await inbox.stats();
        expect(stats.events).toEqual({ pending: 1, running: 1, done: 0, dead: 0 });
        expect(stats.outbox.held).toBe(0);
        expect(stats.lease).toEqual({ holder: 'A', gen: run.gen, until: T0 + TTL });
      });

      it('retried after it went through, it is refused: the messages are queued once', async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a', 'b');
        const run = (await inbox.acquireAndClaim('A'))!;
        const ids = run.events.map((e) => e.id);
        expect((await inbox.finishAndClaim('A', run.gen, ids, { messages: ['one'] })).finished).toBe(true);
        expect(await inbox.finishAndClaim('A', run.gen, ids, { messages: ['one'] })).toEqual({ finished: false, events: [] });
        expect((await inbox.stats()).outbox.held).toBe(1);
      });

      it('events:dead for a dead-at-once finish and for what its claim parks; the outbox hint when it queues messages', async () => {
        const { store, clock } = await open({ leaseTtlMs: TTL, maxAttempts: 1, retryBackoff: { baseMs: BASE, maxMs: BASE } });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'rejected', 'flaky');
        const dead = deadEvents(store);
        const hints: Array<[string, WakeKind]> = [];
        await store.subscribe((inboxId, kind) => hints.push([inboxId, kind]));
        const run = (await inbox.acquireAndClaim('A'))!;
        const [rejected, flaky] = run.events;
        await inbox.finishAndClaim('A', run.gen, [rejected!.id], { error: 'screened out', dead: true });
        // Its one attempt is used up: the claim in the same call parks it, and with nothing left the lease goes.
        expect(await inbox.finishAndClaim('A', run.gen, [flaky!.id], { error: 'boom' })).toEqual({ finished: true, events: [] });
        clock.advance(BASE);
        await ingestAll(inbox, 'c');
        const next = (await inbox.acquireAndClaim('A'))!;
        expect(next.events.map((e) => e.sourceId)).toEqual(['c']);
        expect(await inbox.finishAndClaim('A', next.gen, [next.events[0]!.id], { messages: ['hi'] })).toEqual({ finished: true, events: [] });
        expect(dead.map((e) => [e.error, e.events.map((d) => d.id)])).toEqual([
          ['screened out', [rejected!.id]],
          ['too many attempts', [flaky!.id]],
        ]);
        for (let i = 0; i < 200 && !hints.some(([, kind]) => kind === 'outbox'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(hints.filter(([, kind]) => kind === 'outbox')).toEqual([['alice', 'outbox']]);
      });

      it('an invalid outcome is refused before anything is written, as finish refuses it', async () => {
        const { store } = await open({ leaseTtlMs: TTL });
        const inbox = store.inbox('alice');
        await ingestAll(inbox, 'a');
        const run = (await inbox.acquireAndClaim('A'))!;
        await expectVigilError(inbox.finishAndClaim('A', run.gen, [run.events[0]!.id], { messages: [''] }), 'invalid_argument');
        await expectVigilError(inbox.finishAndClaim('A', 0, [run.events[0]!.id], {}), 'invalid_argument');
        expect(await statuses(inbox)).toEqual({ a: 'running' });
      });
    });

    it('retention: what the steps finished is pruned at its age, from when it finished; its keys stay duplicates', async () => {
      const DAY = 86_400_000;
      const { store, clock } = await open({ leaseTtlMs: TTL, retention: { doneEventsMs: DAY, sentMessagesMs: DAY } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const run = (await inbox.acquireAndClaim('A'))!;
      clock.advance(1_000);
      expect(await inbox.finishAndClaim('A', run.gen, run.events.map((e) => e.id), {})).toEqual({ finished: true, events: [] });
      clock.advance(DAY - 1);
      expect((await store.prune()).events).toBe(0); // finished 1 s after the claim: one ms short of its retention
      clock.advance(1);
      expect((await store.prune()).events).toBe(2);
      expect(await inbox.ingestMany([{ source: 's', sourceId: 'a' }, { source: 's', sourceId: 'c' }])).toEqual([false, true]);
      const next = (await inbox.acquireAndClaim('A'))!;
      expect(next.events.map((e) => e.sourceId)).toEqual(['c']);
    });

    it('a whole run in two calls leaves what acquire, claimBatch, finish and release leave', async () => {
      const steps = await open({ leaseTtlMs: TTL, batchLimit: 2 });
      const calls = await open({ leaseTtlMs: TTL, batchLimit: 2 });
      const sourceIds = ['a', 'b', 'c', 'd', 'e'];
      await ingestAll(steps.store.inbox('alice'), ...sourceIds);
      await ingestAll(calls.store.inbox('alice'), ...sourceIds);

      const one = steps.store.inbox('alice');
      let run = (await one.acquireAndClaim('W'))!;
      let events = run.events;
      while (events.length > 0) {
        ({ events } = await one.finishAndClaim('W', run.gen, events.map((e) => e.id), { messages: [events.map((e) => e.sourceId).join('+')] }));
      }

      const other = calls.store.inbox('alice');
      const gen = (await other.acquire('W'))!;
      for (let batch = await other.claimBatch('W', gen); batch.length > 0; batch = await other.claimBatch('W', gen)) {
        await other.finish('W', gen, batch.map((e) => e.id), { messages: [batch.map((e) => e.sourceId).join('+')] });
      }
      await other.release('W', gen);

      const view = async (store: Store) => {
        const inbox = store.inbox('alice');
        const rows = await inbox.events({ limit: 100 });
        return { events: rows.map((e) => [e.sourceId, e.status, e.attempts]), stats: await inbox.stats(), ready: await store.readyInboxes() };
      };
      expect(await view(steps.store)).toEqual(await view(calls.store));
      run = (await one.acquireAndClaim('X'))!;
      expect(run).toEqual({ gen: gen + 1, events: [] });
    });
  });
}
