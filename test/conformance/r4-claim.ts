import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { ingestAll, lease, statuses } from './helpers.js';

const TTL = 100_000;
const BASE = 1_000;

export function r4Claim(target: StoreTarget): void {
  describe(`R4 claim (${target.name})`, () => {
    const open = useStore(target);

    it('claims every never-tried event, oldest first, with payload and attempts counted at claim', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b', 'c');
      const gen = await lease(inbox, 'A');
      const claimed = await inbox.claimBatch('A', gen);
      expect(claimed.map((e) => [e.sourceId, e.attempts, e.payload])).toEqual([
        ['a', 1, { n: 'a' }],
        ['b', 1, { n: 'b' }],
        ['c', 1, { n: 'c' }],
      ]);
      expect(claimed.map((e) => e.id)).toEqual([...claimed.map((e) => e.id)].sort((x, y) => x - y));
      expect(Object.keys(claimed[0]!).sort()).toEqual(['attempts', 'id', 'payload', 'source', 'sourceId']);
      expect((await inbox.stats()).events).toEqual({ pending: 0, running: 3, done: 0, dead: 0 });
      expect(await inbox.claimBatch('A', gen)).toEqual([]); // nothing left to claim
    });

    it('batchLimit caps a batch; the rest come in later batches, oldest first', async () => {
      const { store } = await open({ batchLimit: 2 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b', 'c', 'd', 'e');
      const gen = await lease(inbox, 'A');
      const batches: string[][] = [];
      for (let i = 0; i < 4; i++) batches.push((await inbox.claimBatch('A', gen)).map((e) => e.sourceId));
      expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e'], []]);
    });

    it('an attempt is counted at claim: a crashed worker uses one up', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL, maxAttempts: 3 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'poison');
      const seen: number[] = [];
      for (const holder of ['A', 'B', 'C']) {
        const gen = await lease(inbox, holder);
        const claimed = await inbox.claimBatch(holder, gen);
        seen.push(...claimed.map((e) => e.attempts));
        clock.advance(TTL + 1); // the worker dies without finishing
      }
      expect(seen).toEqual([1, 2, 3]);
      const gen = await lease(inbox, 'D');
      expect(await inbox.claimBatch('D', gen)).toEqual([]);
      const [dead] = await inbox.events({ status: 'dead' });
      expect(dead).toMatchObject({ sourceId: 'poison', status: 'dead', attempts: 3, error: 'too many attempts' });
      expect(dead!.lastError).toBe('abandoned: generation 3 lost its lease before finishing');
    });

    it('events left running by an older gen go back to pending and are retried, error saying why', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen1 = await lease(inbox, 'A');
      await inbox.claimBatch('A', gen1);
      clock.set(T0 + TTL + 1);
      const gen2 = await lease(inbox, 'B');
      // Both were abandoned; retried events are claimed one at a time, oldest first.
      expect((await inbox.claimBatch('B', gen2)).map((e) => [e.sourceId, e.attempts])).toEqual([['a', 2]]);
      const b = await inbox.getEvent('s', 'b');
      expect(b).toMatchObject({ status: 'pending', attempts: 1, error: 'abandoned: generation 1 lost its lease before finishing' });
      expect((await inbox.claimBatch('B', gen2)).map((e) => e.sourceId)).toEqual(['b']);
    });

    it('a claim by the holder of the current gen leaves its own running events alone', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      await inbox.claimBatch('A', gen);
      await ingestAll(inbox, 'b');
      expect((await inbox.claimBatch('A', gen)).map((e) => e.sourceId)).toEqual(['b']);
      expect(await statuses(inbox)).toEqual({ a: 'running', b: 'running' });
    });

    it('after maxAttempts failures the event is dead with "too many attempts", keeping the last run error', async () => {
      const { store, clock } = await open({ maxAttempts: 2, retryBackoff: { baseMs: BASE, maxMs: BASE } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'poison');
      const gen = await lease(inbox, 'A');
      const [first] = await inbox.claimBatch('A', gen);
      expect(await inbox.finish('A', gen, [first!.id], { error: 'boom 1' })).toBe(true);
      clock.advance(BASE);
      const [second] = await inbox.claimBatch('A', gen);
      expect(second).toMatchObject({ id: first!.id, attempts: 2 });
      expect(await inbox.finish('A', gen, [second!.id], { error: 'boom 2' })).toBe(true);
      expect(await inbox.getEvent('s', 'poison')).toMatchObject({ status: 'pending', attempts: 2, error: 'boom 2' });
      // The next claim kills it at once, without waiting for the backoff.
      expect(await inbox.claimBatch('A', gen)).toEqual([]);
      expect(await inbox.getEvent('s', 'poison')).toMatchObject({
        status: 'dead',
        attempts: 2,
        error: 'too many attempts',
        lastError: 'boom 2',
      });
    });

    it('maxAttempts 1: an event that fails once is dead at the next claim', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, [a!.id], { error: 'nope' });
      await inbox.claimBatch('A', gen);
      expect(await statuses(inbox)).toEqual({ a: 'dead', b: 'running' });
    });

    it('a retried event is claimed alone, never with the batch it failed in', async () => {
      const { store, clock } = await open({ retryBackoff: { baseMs: BASE, maxMs: BASE } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b', 'c');
      const gen = await lease(inbox, 'A');
      const batch = await inbox.claimBatch('A', gen);
      expect(await inbox.finish('A', gen, batch.map((e) => e.id), { error: 'batch failed' })).toBe(true);
      await ingestAll(inbox, 'd');
      clock.advance(BASE);
      const runs: string[][] = [];
      for (let i = 0; i < 4; i++) {
        const claimed = await inbox.claimBatch('A', gen);
        runs.push(claimed.map((e) => `${e.sourceId}${e.attempts}`));
        await inbox.finish('A', gen, claimed.map((e) => e.id));
      }
      expect(runs).toEqual([['a2'], ['b2'], ['c2'], ['d1']]);
    });

    it('backoff: a retry is claimable exactly at lastClaimAt + baseMs, not 1 ms before (counted from the claim, not the failure)', async () => {
      const { store, clock } = await open({ retryBackoff: { baseMs: BASE, maxMs: 60_000 } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen); // claimed at T0
      clock.set(T0 + 400);
      await inbox.finish('A', gen, [a!.id], { error: 'flaky' }); // failed at T0 + 400
      clock.set(T0 + BASE - 1);
      expect(await inbox.claimBatch('A', gen)).toEqual([]);
      clock.set(T0 + BASE);
      expect(await inbox.claimBatch('A', gen)).toMatchObject([{ id: a!.id, attempts: 2 }]);
    });

    it('backoff doubles per attempt: base * 2^(attempts-1) after each claim', async () => {
      const { store, clock } = await open({ maxAttempts: 10, retryBackoff: { baseMs: BASE, maxMs: 60_000 } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      let claimedAt = T0;
      const [first] = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, [first!.id], { error: 'e' });
      for (const attempts of [1, 2, 3, 4]) {
        const wait = BASE * 2 ** (attempts - 1);
        clock.set(claimedAt + wait - 1);
        expect(await inbox.claimBatch('A', gen)).toEqual([]);
        clock.set(claimedAt + wait);
        const [again] = await inbox.claimBatch('A', gen);
        expect(again).toMatchObject({ id: first!.id, attempts: attempts + 1 });
        claimedAt = claimedAt + wait;
        await inbox.finish('A', gen, [again!.id], { error: 'e' });
      }
    });

    it('backoff is capped at maxMs', async () => {
      const { store, clock } = await open({ maxAttempts: 10, retryBackoff: { baseMs: BASE, maxMs: 1_500 } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, [a!.id], { error: 'e' });
      clock.set(T0 + BASE); // attempts 1: min(1000, 1500)
      expect(await inbox.claimBatch('A', gen)).toHaveLength(1);
      await inbox.finish('A', gen, [a!.id], { error: 'e' });
      // attempts 2: min(2000, 1500) = 1500 after the claim at T0 + 1000
      clock.set(T0 + BASE + 1_499);
      expect(await inbox.claimBatch('A', gen)).toEqual([]);
      clock.set(T0 + BASE + 1_500);
      expect(await inbox.claimBatch('A', gen)).toMatchObject([{ attempts: 3 }]);
      await inbox.finish('A', gen, [a!.id], { error: 'e' });
      // attempts 3: min(4000, 1500) = 1500 again
      clock.set(T0 + BASE + 3_000);
      expect(await inbox.claimBatch('A', gen)).toMatchObject([{ attempts: 4 }]);
    });

    it('a backoff of 0 retries at once', async () => {
      const { store } = await open({ retryBackoff: { baseMs: 0, maxMs: 0 } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, [a!.id], { error: 'e' });
      expect(await inbox.claimBatch('A', gen)).toMatchObject([{ id: a!.id, attempts: 2 }]);
    });

    it('never-tried events are claimed around a retry that is still waiting', async () => {
      const { store, clock } = await open({ retryBackoff: { baseMs: BASE, maxMs: BASE } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, [a!.id], { error: 'e' });
      await ingestAll(inbox, 'b', 'c');
      clock.set(T0 + BASE - 1);
      const fresh = await inbox.claimBatch('A', gen);
      expect(fresh.map((e) => e.sourceId)).toEqual(['b', 'c']);
      await inbox.finish('A', gen, fresh.map((e) => e.id));
      expect(await inbox.getEvent('s', 'a')).toMatchObject({ status: 'pending', attempts: 1 });
      clock.set(T0 + BASE);
      expect((await inbox.claimBatch('A', gen)).map((e) => e.sourceId)).toEqual(['a']);
    });

    it('of several retries whose backoff passed, the oldest goes first', async () => {
      const { store, clock } = await open({ retryBackoff: { baseMs: BASE, maxMs: BASE } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen = await lease(inbox, 'A');
      const batch = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, batch.map((e) => e.id).reverse(), { error: 'e' });
      clock.set(T0 + BASE);
      expect((await inbox.claimBatch('A', gen)).map((e) => e.sourceId)).toEqual(['a']);
    });

    it('a finished (done) event is never claimed again', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const batch = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, batch.map((e) => e.id));
      expect(await inbox.claimBatch('A', gen)).toEqual([]);
      await inbox.release('A', gen);
      const gen2 = await lease(inbox, 'B');
      expect(await inbox.claimBatch('B', gen2)).toEqual([]);
      expect(await statuses(inbox)).toEqual({ a: 'done' });
    });
  });
}
