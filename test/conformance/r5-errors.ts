import { describe, expect, it } from 'vitest';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease, statuses } from './helpers.js';

export function r5Errors(target: StoreTarget): void {
  describe(`R5 errors (${target.name})`, () => {
    const open = useStore(target);

    it('finish with an error puts the events back to pending with the error recorded', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen = await lease(inbox, 'A');
      const batch = await inbox.claimBatch('A', gen);
      expect(await inbox.finish('A', gen, batch.map((e) => e.id), { error: 'model timed out' })).toBe(true);
      for (const sourceId of ['a', 'b']) {
        expect(await inbox.getEvent('s', sourceId)).toMatchObject({
          status: 'pending',
          attempts: 1,
          error: 'model timed out',
          lastError: 'model timed out',
        });
      }
      expect((await inbox.stats()).events).toEqual({ pending: 2, running: 0, done: 0, dead: 0 });
    });

    it('an error queues no message, even when the outcome also lists messages', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      expect(await inbox.finish('A', gen, [a!.id], { error: 'failed', messages: ['half a reply', { body: 'alarm', urgent: true }] })).toBe(true);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 0, undeliverable: 0, rejected: 0 });
      let sends = 0;
      expect(await inbox.dispatch(() => void sends++)).toBe(0);
      expect(sends).toBe(0);
    });

    it('a later success clears the error and queues its reply', async () => {
      const { store, clock } = await open({ retryBackoff: { baseMs: 10, maxMs: 10 } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.finish('A', gen, [a!.id], { error: 'first try failed' });
      clock.advance(10);
      const [again] = await inbox.claimBatch('A', gen);
      expect(await inbox.finish('A', gen, [again!.id], { messages: ['done now'] })).toBe(true);
      const row = await inbox.getEvent('s', 'a');
      expect(row).toMatchObject({ status: 'done', attempts: 2, error: null, lastError: 'first try failed' });
      expect((await inbox.stats()).outbox.held).toBe(1);
    });

    it('an error finish is fenced like any other: refused from an older gen', async () => {
      const { store, clock } = await open({ leaseTtlMs: 1_000 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      clock.advance(1_001);
      await lease(inbox, 'B');
      expect(await inbox.finish('A', gen, [a!.id], { error: 'late failure' })).toBe(false);
      expect(await inbox.getEvent('s', 'a')).toMatchObject({ status: 'running', error: null });
    });

    it.each([
      ['an empty error string', { error: '' }],
      ['a non-string error', { error: 42 }],
      ['messages that are not an array', { messages: 'hello' }],
      ['an empty message body', { messages: ['ok', ''] }],
      ['a message without a body', { messages: [{ urgent: true }] }],
      ['a non-boolean urgent flag', { messages: [{ body: 'x', urgent: 'yes' }] }],
      ['an outcome that is not an object', 'done'],
      ['a null outcome', null],
    ])('finish with %s is invalid_argument and changes nothing', async (_what, outcome) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await expectVigilError(inbox.finish('A', gen, [a!.id], outcome as never), 'invalid_argument');
      expect(await statuses(inbox)).toEqual({ a: 'running' });
      expect((await inbox.stats()).outbox.held).toBe(0);
    });

    it('a message body over maxPayloadBytes is invalid_argument; exactly at it is fine', async () => {
      const { store } = await open({ maxPayloadBytes: 10 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await expectVigilError(inbox.finish('A', gen, [a!.id], { messages: ['x'.repeat(11)] }), 'invalid_argument');
      expect(await statuses(inbox)).toEqual({ a: 'running' });
      expect(await inbox.finish('A', gen, [a!.id], { messages: ['x'.repeat(10)] })).toBe(true);
    });

    it.each([
      ['ids that are not an array', 1],
      ['an id of 0', [0]],
      ['a fractional id', [1.5]],
      ['a string id', ['1']],
    ])('finish with %s is invalid_argument', async (_what, ids) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      await inbox.claimBatch('A', gen);
      await expectVigilError(inbox.finish('A', gen, ids as never), 'invalid_argument');
      expect(await statuses(inbox)).toEqual({ a: 'running' });
    });
  });
}
