import { describe, expect, it } from 'vitest';
import type { FakeClock, Inbox, Store } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';

export function r12Concurrency(target: StoreTarget): void {
  describe(`R12 concurrency (${target.name})`, () => {
    const open = useStore(target);

    /** `count` handles on one store's data, the first being the original. */
    async function handles(count: number, options = {}): Promise<{ stores: Store[]; clock: FakeClock }> {
      const { store, reopen, clock } = await open(options);
      const stores = [store];
      for (let i = 1; i < count; i++) stores.push(await reopen());
      return { stores, clock };
    }

    it('overlapping ingests over four handles: exactly one true per key', async () => {
      const { stores } = await handles(4);
      const keys = Array.from({ length: 25 }, (_, i) => `k${i}`);
      const calls = stores.flatMap((s, h) =>
        keys.map(async (sourceId) => ({ sourceId, stored: await s.inbox('alice').ingest({ source: 's', sourceId, payload: { h } }) })),
      );
      const batch = stores.map((s) => s.inbox('alice').ingestMany(keys.map((sourceId) => ({ source: 's', sourceId }))));
      const results = await Promise.all(calls);
      const batches = await Promise.all(batch);
      const trues = new Map<string, number>();
      for (const { sourceId, stored } of results) if (stored) trues.set(sourceId, (trues.get(sourceId) ?? 0) + 1);
      for (const flags of batches) flags.forEach((stored, i) => stored && trues.set(keys[i]!, (trues.get(keys[i]!) ?? 0) + 1));
      expect([...trues.values()].every((n) => n === 1)).toBe(true);
      expect(trues.size).toBe(keys.length);
      expect((await stores[0]!.inbox('alice').stats()).events.pending).toBe(keys.length);
    });

    it('simultaneous acquire by six holders over three handles: exactly one gets the lease', async () => {
      const { stores } = await handles(3);
      const holders = ['A', 'B', 'C', 'D', 'E', 'F'];
      const gens = await Promise.all(holders.map((h, i) => stores[i % stores.length]!.inbox('alice').acquire(h)));
      const winners = holders.filter((_, i) => gens[i] !== null);
      expect(winners).toHaveLength(1);
      expect(gens.filter((g) => g !== null)).toEqual([1]);
      expect((await stores[1]!.inbox('alice').stats()).lease).toMatchObject({ holder: winners[0], gen: 1 });
    });

    it('simultaneous takeover after expiry: exactly one new holder, gen + 1', async () => {
      const { stores, clock } = await handles(3, { leaseTtlMs: 1_000 });
      await stores[0]!.inbox('alice').acquire('old');
      clock.set(T0 + 1_001);
      const gens = await Promise.all(['A', 'B', 'C', 'old'].map((h, i) => stores[i % 3]!.inbox('alice').acquire(h)));
      expect(gens.filter((g) => g !== null)).toEqual([2]);
    });

    it('claim/finish racing takeovers: no event finished twice, no reply queued twice, nothing lost', async () => {
      const TTL = 1_000;
      const { stores, clock } = await handles(3, { leaseTtlMs: TTL, batchLimit: 3, maxAttempts: 1_000, retryBackoff: { baseMs: 0, maxMs: 0 } });
      const ids = Array.from({ length: 30 }, (_, i) => ({ source: 's', sourceId: `e${i}` }));
      await stores[0]!.inbox('alice').ingestMany(ids);
      const finishedBy = new Map<number, number>();
      let refused = 0;
      let takeovers = 0;

      const worker = async (inbox: Inbox, name: string, stallEvery: number): Promise<void> => {
        for (let round = 1; round <= 25; round++) {
          const gen = await inbox.acquire(name);
          if (gen === null) {
            await inbox.stats(); // let the others move
            continue;
          }
          if (gen > 1) takeovers++;
          const batch = await inbox.claimBatch(name, gen);
          if (round % stallEvery === 0) clock.advance(TTL + 1); // this worker stalls past its lease
          const ok = await inbox.finish(name, gen, batch.map((e) => e.id), { messages: batch.map((e) => `reply ${e.sourceId}`) });
          if (ok) for (const e of batch) finishedBy.set(e.id, (finishedBy.get(e.id) ?? 0) + 1);
          else refused++;
          if (round % 4 === 0) await inbox.release(name, gen);
        }
      };
      await Promise.all([
        worker(stores[0]!.inbox('alice'), 'W1', 3),
        worker(stores[1]!.inbox('alice'), 'W2', 5),
        worker(stores[2]!.inbox('alice'), 'W3', 7),
      ]);
      expect(refused).toBeGreaterThan(0); // the race really had stale finishes to fence off
      expect(takeovers).toBeGreaterThan(0);
      // Drain whatever the race left, as one calm worker.
      clock.advance(TTL + 1);
      const inbox = stores[0]!.inbox('alice');
      const gen = (await inbox.acquire('drain')) as number;
      for (let batch = await inbox.claimBatch('drain', gen); batch.length > 0; batch = await inbox.claimBatch('drain', gen)) {
        expect(await inbox.finish('drain', gen, batch.map((e) => e.id), { messages: batch.map((e) => `reply ${e.sourceId}`) })).toBe(true);
        for (const e of batch) finishedBy.set(e.id, (finishedBy.get(e.id) ?? 0) + 1);
      }
      expect((await inbox.stats()).events).toEqual({ pending: 0, running: 0, done: 30, dead: 0 });
      expect(finishedBy.size).toBe(30);
      expect([...finishedBy.values()].every((n) => n === 1)).toBe(true);
      const sent: string[] = [];
      await inbox.dispatch((_body, messages) => void sent.push(...messages.map((m) => m.body)));
      expect(sent.sort()).toEqual(ids.map((e) => `reply ${e.sourceId}`).sort());
    });

    it('many dispatch calls over three handles while runs queue messages: each message sent exactly once', async () => {
      const { stores } = await handles(3, { outboxGapMs: 0 });
      const inbox = stores[0]!.inbox('alice');
      const gen = (await inbox.acquire('W')) as number;
      const sent: string[] = [];
      const send = async (_body: string, messages: { body: string }[]): Promise<void> => {
        await Promise.resolve();
        sent.push(...messages.map((m) => m.body));
      };
      const queueing = (async () => {
        for (let i = 0; i < 20; i++) await inbox.finish('W', gen, [], { messages: [`m${i}`] });
      })();
      const dispatching = stores.map(async (s) => {
        for (let i = 0; i < 15; i++) await s.inbox('alice').dispatch(send);
      });
      await Promise.all([queueing, ...dispatching]);
      await inbox.dispatch(send);
      expect(sent.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`).sort());
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 20, undeliverable: 0, rejected: 0 });
    });

    it('scheduler passes at the same instant over three handles: one event per occurrence, each timer advanced once', async () => {
      const { stores, clock } = await handles(3);
      const inbox = stores[0]!.inbox('alice');
      await inbox.addTimer({ id: 'every', due: T0 + 10, every: 10, missed: 'each' });
      await inbox.addTimer({ id: 'once', due: T0 + 20 });
      await inbox.requestApproval({ id: 'ap', expiresInMs: 20, action: 'x' });
      clock.set(T0 + 35);
      await Promise.all(stores.flatMap((s) => [s.inbox('alice').runScheduler(), s.inbox('alice').runScheduler()]));
      const keys = (await inbox.events()).map((e) => `${e.source}/${e.sourceId}`).sort();
      expect(keys).toEqual(['approval/ap', `timer/every@${T0 + 10}`, `timer/every@${T0 + 20}`, `timer/every@${T0 + 30}`, `timer/once@${T0 + 20}`]);
      expect(await inbox.timers()).toMatchObject([
        { id: 'every', due: T0 + 40, done: false },
        { id: 'once', done: true },
      ]);
    });

    it('answers and the scheduler racing on one approval: exactly one outcome stored, every caller told the same', async () => {
      const { stores, clock } = await handles(3);
      await stores[0]!.inbox('alice').requestApproval({ id: 'ap', expiresInMs: 100, action: 'x' });
      clock.set(T0 + 100);
      const [, ...answers] = await Promise.all([
        stores[0]!.inbox('alice').runScheduler(),
        stores[1]!.inbox('alice').answerApproval('ap', 'yes'),
        stores[2]!.inbox('alice').answerApproval('ap', 'no'),
      ]);
      expect(answers).toEqual(['expired', 'expired']);
      expect(await stores[0]!.inbox('alice').events()).toMatchObject([{ source: 'approval', payload: { answer: 'expired' } }]);
    });

    it('ingest, claim and finish interleaved over handles: every event ends done exactly once', async () => {
      const { stores } = await handles(3, { batchLimit: 4 });
      const producer = async (s: Store, prefix: string): Promise<void> => {
        for (let i = 0; i < 10; i++) await s.inbox('alice').ingest({ source: prefix, sourceId: String(i) });
      };
      const inbox = stores[2]!.inbox('alice');
      const gen = (await inbox.acquire('W')) as number;
      let done = 0;
      const consumer = async (): Promise<void> => {
        for (let i = 0; i < 30; i++) {
          const batch = await inbox.claimBatch('W', gen);
          if (batch.length > 0 && (await inbox.finish('W', gen, batch.map((e) => e.id)))) done += batch.length;
        }
      };
      await Promise.all([producer(stores[0]!, 'p'), producer(stores[1]!, 'q'), consumer()]);
      for (let batch = await inbox.claimBatch('W', gen); batch.length > 0; batch = await inbox.claimBatch('W', gen)) {
        await inbox.finish('W', gen, batch.map((e) => e.id));
        done += batch.length;
      }
      expect(done).toBe(20);
      expect((await inbox.stats()).events).toEqual({ pending: 0, running: 0, done: 20, dead: 0 });
    });
  });
}
