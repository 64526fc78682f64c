import { describe, expect, it } from 'vitest';
import { VigilError } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';

export function r1Dedupe(target: StoreTarget): void {
  describe(`R1 dedupe (${target.name})`, () => {
    const open = useStore(target);

    it('stores a (source, sourceId) once and returns false for the duplicate', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect(await inbox.ingest({ source: 'github', sourceId: 'd-1', payload: { pr: 12 } })).toBe(true);
      expect(await inbox.ingest({ source: 'github', sourceId: 'd-1', payload: { pr: 99 } })).toBe(false);
      const events = await inbox.events();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ source: 'github', sourceId: 'd-1', payload: { pr: 12 }, status: 'pending', attempts: 0 });
    });

    it('keys on the pair: the same id from two sources is two events', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect(await inbox.ingest({ source: 'github', sourceId: 'x' })).toBe(true);
      expect(await inbox.ingest({ source: 'stripe', sourceId: 'x' })).toBe(true);
      expect((await inbox.stats()).events.pending).toBe(2);
    });

    it('ingestMany stores a batch in one call with the same rule, duplicates inside the batch included', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'old' });
      const result = await inbox.ingestMany([
        { source: 's', sourceId: 'a', payload: 1 },
        { source: 's', sourceId: 'old' },
        { source: 's', sourceId: 'a', payload: 2 },
        { source: 's', sourceId: 'b' },
      ]);
      expect(result).toEqual([true, false, false, true]);
      expect((await inbox.getEvent('s', 'a'))?.payload).toBe(1);
      expect(await inbox.ingestMany([])).toEqual([]);
    });

    it('ingestMany of nothing stores nothing and creates no inbox', async () => {
      const { store } = await open();
      expect(await store.inbox('alice').ingestMany([])).toEqual([]);
      expect(await store.inboxes()).toEqual([]);
    });

    it('a duplicate is refused by a second handle on the same data too', async () => {
      const { store, reopen } = await open();
      const other = await reopen();
      expect(await store.inbox('bob').ingest({ source: 's', sourceId: '1' })).toBe(true);
      expect(await other.inbox('bob').ingest({ source: 's', sourceId: '1' })).toBe(false);
    });

    it.each([
      ['an empty source', { source: '', sourceId: 'x' }],
      ['an empty sourceId', { source: 's', sourceId: '' }],
      ['a source over 256 characters', { source: 's'.repeat(257), sourceId: 'x' }],
      ['a sourceId over 256 characters', { source: 's', sourceId: 'x'.repeat(257) }],
      ['a non-string sourceId', { source: 's', sourceId: 42 }],
      ['a function payload', { source: 's', sourceId: 'x', payload: () => 1 }],
      ['a BigInt payload', { source: 's', sourceId: 'x', payload: { n: 1n } }],
      ['a NaN payload', { source: 's', sourceId: 'x', payload: { n: Number.NaN } }],
      ['a Map payload', { source: 's', sourceId: 'x', payload: new Map([[1, 2]]) }],
      ['a cyclic payload', { source: 's', sourceId: 'x', payload: (() => { const o: Record<string, unknown> = {}; o.self = o; return o; })() }],
    ])('rejects %s with invalid_event and stores nothing', async (_what, event) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await expect(inbox.ingest(event as never)).rejects.toMatchObject({ code: 'invalid_event' });
      await expect(inbox.ingestMany([{ source: 's', sourceId: 'ok' }, event as never])).rejects.toBeInstanceOf(VigilError);
      expect(await inbox.events()).toEqual([]);
    });

    it('accepts 256-character keys and a payload exactly at the size limit, rejects one byte more', async () => {
      const { store } = await open({ maxPayloadBytes: 20 });
      const inbox = store.inbox('alice');
      const key = 'k'.repeat(256);
      expect(await inbox.ingest({ source: key, sourceId: key, payload: 'x'.repeat(18) })).toBe(true); // "xxx…" is 20 bytes
      await expect(inbox.ingest({ source: 's', sourceId: 'big', payload: 'x'.repeat(19) })).rejects.toMatchObject({ code: 'invalid_event' });
      expect(await inbox.getEvent('s', 'big')).toBeNull();
    });

    it('a key stays taken after its event is done or dead: a late redelivery is still a duplicate', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await inbox.ingestMany([{ source: 's', sourceId: 'done' }, { source: 's', sourceId: 'dead' }]);
      const gen = (await inbox.acquire('W')) as number;
      const [done, dead] = await inbox.claimBatch('W', gen);
      await inbox.finish('W', gen, [done!.id]);
      await inbox.finish('W', gen, [dead!.id], { error: 'poison' });
      await inbox.claimBatch('W', gen);
      expect(await inbox.ingest({ source: 's', sourceId: 'done', payload: 'again' })).toBe(false);
      expect(await inbox.ingest({ source: 's', sourceId: 'dead', payload: 'again' })).toBe(false);
      expect(await inbox.ingestMany([{ source: 's', sourceId: 'done' }])).toEqual([false]);
      expect((await inbox.stats()).events).toEqual({ pending: 0, running: 0, done: 1, dead: 1 });
    });

    it.each([
      ['null', null],
      ['a string', 'github:d-1'],
      ['an array', [{ source: 's', sourceId: 'x' }]],
    ])('an event that is %s is invalid_event', async (_what, event) => {
      const { store } = await open();
      await expect(store.inbox('alice').ingest(event as never)).rejects.toMatchObject({ code: 'invalid_event' });
      await expect(store.inbox('alice').ingestMany([event] as never)).rejects.toMatchObject({ code: 'invalid_event' });
      expect(await store.inboxes()).toEqual([]);
    });

    it('ingestMany of something that is not an array is invalid_event', async () => {
      const { store } = await open();
      await expect(store.inbox('alice').ingestMany({ source: 's', sourceId: 'x' } as never)).rejects.toMatchObject({ code: 'invalid_event' });
      expect(await store.inboxes()).toEqual([]);
    });

    it('undefined properties inside a payload are left out, as JSON does', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'x', payload: { a: 1, b: undefined, nested: [{ c: undefined, d: 'e' }] } });
      expect((await inbox.getEvent('s', 'x'))?.payload).toEqual({ a: 1, nested: [{ d: 'e' }] });
    });

    it('an absent payload is stored as null', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: 'x' });
      expect((await inbox.getEvent('s', 'x'))?.payload).toBeNull();
    });
  });
}
