/**
 * What a channel did not take (R9, channel results): a send may report
 * messages a channel rejected for good or cannot address; they are recorded
 * with the batch, counted, listed, and redrivable for that channel alone.
 * The same on every store.
 */
import { describe, expect, it } from 'vitest';
import type { HeldMessage, Inbox } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

async function queue(inbox: Inbox, ...bodies: string[]): Promise<void> {
  const gen = await lease(inbox, 'W');
  expect(await inbox.finish('W', gen, [], { messages: bodies })).toBe(true);
}

export function outboxFailures(target: StoreTarget): void {
  describe(`outbox failures and redrive (${target.name})`, () => {
    const open = useStore(target);

    it('a send that reports a rejection and an undeliverable channel: the batch is sent, the failures kept, counted and listed', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'one', 'two');
      expect(
        await inbox.dispatch((_body, messages) => ({
          failures: [
            { messageIds: messages.map((m) => m.id), channel: 'slack', kind: 'undeliverable', error: 'no contacts.slack' },
            { messageIds: [messages[1]!.id], channel: 'email', kind: 'rejected', error: 'mailbox unavailable' },
          ],
        })),
      ).toBe(2);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 2, undeliverable: 2, rejected: 1 });
      const { failed } = await store.view('alice').outbox();
      expect(failed.map((f) => [f.body, f.channel, f.kind, f.error])).toEqual([
        ['two', 'email', 'rejected', 'mailbox unavailable'],
        ['two', 'slack', 'undeliverable', 'no contacts.slack'],
        ['one', 'slack', 'undeliverable', 'no contacts.slack'],
      ]);
    });

    it('redriveOutbox({ channel }) holds copies for that channel alone; what is sent again goes to it only, once', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'hello');
      await inbox.dispatch((_body, messages) => ({
        failures: [
          { messageIds: [messages[0]!.id], channel: 'slack', kind: 'undeliverable', error: 'no contact' },
          { messageIds: [messages[0]!.id], channel: 'email', kind: 'rejected', error: 'bounced' },
        ],
      }));
      expect(await inbox.redriveOutbox({ channel: 'slack' })).toBe(1);
      expect(await inbox.redriveOutbox({ channel: 'slack' })).toBe(0);
      expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 1, undeliverable: 0, rejected: 1 });
      const batches: HeldMessage[][] = [];
      expect(await inbox.dispatch((_body, messages) => void batches.push(messages))).toBe(1);
      expect(batches).toEqual([[{ id: expect.any(Number), body: 'hello', urgent: false, channel: 'slack' }]]);
      expect(await inbox.redriveOutbox()).toBe(1); // the email one: every channel's
      expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 2, undeliverable: 0, rejected: 0 });
    });

    it('at most once: the failures of a batch recorded before its send are kept all the same', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'once');
      await inbox.dispatch((_body, messages) => ({ failures: [{ messageIds: [messages[0]!.id], channel: 'slack', kind: 'rejected', error: 'token_revoked' }] }), {
        atMostOnce: true,
      });
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 1 });
    });

    it('a report that names messages outside the batch is refused (invalid_argument) and ignored; the batch stays sent, nothing is recorded', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'x');
      await expectVigilError(
        inbox.dispatch(() => ({ failures: [{ messageIds: [999_999], channel: 'slack', kind: 'rejected', error: 'e' }] })),
        'invalid_argument',
      );
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
    });

    it('redriveOutbox on an inbox that was never written changes nothing and creates nothing; a bad channel is invalid_argument', async () => {
      const { store } = await open();
      expect(await store.inbox('ghost').redriveOutbox()).toBe(0);
      expect(await store.inboxes()).toEqual([]);
      await expectVigilError(store.inbox('ghost').redriveOutbox({ channel: '' }), 'invalid_argument');
    });
  });
}
