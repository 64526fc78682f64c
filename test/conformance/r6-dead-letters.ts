import { describe, expect, it } from 'vitest';
import type { Inbox } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease } from './helpers.js';

/** Fails `sourceId` until it is dead (maxAttempts 1, so one failure and one more claim). */
async function kill(inbox: Inbox, holder: string, gen: number, sourceId: string): Promise<number> {
  const claimed = await inbox.claimBatch(holder, gen);
  const target = claimed.find((e) => e.sourceId === sourceId);
  expect(target).toBeDefined();
  await inbox.finish(holder, gen, claimed.map((e) => e.id), { error: `${sourceId} broke` });
  await inbox.claimBatch(holder, gen);
  return target!.id;
}

export function r6DeadLetters(target: StoreTarget): void {
  describe(`R6 dead letters (${target.name})`, () => {
    const open = useStore(target);

    it('dead events stay, are listed by events({status:"dead"}) and counted by stats()', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'x', 'y');
      const gen = await lease(inbox, 'A');
      await kill(inbox, 'A', gen, 'x');
      const dead = await inbox.events({ status: 'dead' });
      expect(dead.map((e) => e.sourceId)).toEqual(['x', 'y']);
      expect(dead[0]).toMatchObject({ status: 'dead', attempts: 1, error: 'too many attempts', lastError: 'x broke', payload: { n: 'x' } });
      expect((await inbox.stats()).events).toEqual({ pending: 0, running: 0, done: 0, dead: 2 });
      expect(await inbox.events({ status: 'pending' })).toEqual([]);
      expect(await inbox.events()).toHaveLength(2);
      // A dead event still holds its key: the same delivery is a duplicate.
      expect(await inbox.ingest({ source: 's', sourceId: 'x' })).toBe(false);
    });

    it('redrive makes a dead event pending with attempts 0; it runs again like a new one', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'x');
      const gen = await lease(inbox, 'A');
      const id = await kill(inbox, 'A', gen, 'x');
      expect(await inbox.redrive(id)).toBe(true);
      const row = await inbox.getEvent('s', 'x');
      expect(row).toMatchObject({ id, status: 'pending', attempts: 0 });
      expect(row!.error).not.toBe('too many attempts');
      expect((await inbox.stats()).events).toEqual({ pending: 1, running: 0, done: 0, dead: 0 });
      const [again] = await inbox.claimBatch('A', gen);
      expect(again).toMatchObject({ id, attempts: 1 });
      expect(await inbox.finish('A', gen, [id], { messages: ['finally'] })).toBe(true);
      expect(await inbox.getEvent('s', 'x')).toMatchObject({ status: 'done' });
    });

    it('redrive touches only dead events: pending, running, done and unknown ids return false', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      expect(await inbox.redrive(1)).toBe(false); // inbox never written
      await ingestAll(inbox, 'p', 'r', 'd');
      const gen = await lease(inbox, 'A');
      const batch = await inbox.claimBatch('A', gen);
      const [p, r, d] = batch;
      await inbox.finish('A', gen, [d!.id]);
      await inbox.finish('A', gen, [p!.id], { error: 'retry me' });
      expect(await inbox.redrive(p!.id)).toBe(false);
      expect(await inbox.redrive(r!.id)).toBe(false);
      expect(await inbox.redrive(d!.id)).toBe(false);
      expect(await inbox.redrive(9_999)).toBe(false);
      expect(await inbox.events()).toMatchObject([
        { sourceId: 'p', status: 'pending', attempts: 1, error: 'retry me' },
        { sourceId: 'r', status: 'running', attempts: 1 },
        { sourceId: 'd', status: 'done', attempts: 1 },
      ]);
    });

    it('redriving twice changes nothing the second time', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'x');
      const gen = await lease(inbox, 'A');
      const id = await kill(inbox, 'A', gen, 'x');
      expect(await inbox.redrive(id)).toBe(true);
      expect(await inbox.redrive(id)).toBe(false);
    });

    it.each([
      ['0', 0],
      ['1.5', 1.5],
      ['a string', '1'],
    ])('redrive(%s) is invalid_argument', async (_what, id) => {
      const { store } = await open();
      await expectVigilError(store.inbox('alice').redrive(id as never), 'invalid_argument');
    });

    it('events() lists oldest first, filters by status and honours limit', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b', 'c', 'd');
      expect((await inbox.events({ limit: 2 })).map((e) => e.sourceId)).toEqual(['a', 'b']);
      expect((await inbox.events({ status: 'pending', limit: 3 })).map((e) => e.sourceId)).toEqual(['a', 'b', 'c']);
      expect(await inbox.events({ status: 'done' })).toEqual([]);
    });

    it.each([
      ['limit 0', { limit: 0 }],
      ['limit 1.5', { limit: 1.5 }],
      ['limit -1', { limit: -1 }],
      ['limit 10001', { limit: 10_001 }],
      ['an unknown status', { status: 'failed' }],
    ])('events() with %s is invalid_argument', async (_what, query) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      await expectVigilError(inbox.events(query as never), 'invalid_argument');
    });
  });
}
