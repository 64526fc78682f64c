/**
 * What a channel did not take (R9, channel results): a send may report
 * messages a channel rejected for good or cannot address; they are recorded
 * with the batch, counted, listed, and redrivable for that channel alone.
 * The same on every store.
 */
import { describe, expect, it } from 'vitest';
import type { HeldMessage, Inbox, SendContext, Store } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

async function queue(inbox: Inbox, ...bodies: string[]): Promise<void> {
  const gen = await lease(inbox, 'W');
  expect(await inbox.finish('W', gen, [], { messages: bodies })).toBe(true);
}

/** The outbox:dispatched and outbox:failed events the store emits from now on. */
function record(store: Store): [string, unknown][] {
  const seen: [string, unknown][] = [];
  store.events.on('outbox:dispatched', (payload) => seen.push(['outbox:dispatched', payload]));
  store.events.on('outbox:failed', (payload) => seen.push(['outbox:failed', payload]));
  return seen;
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

    it('dropOutbox({ channel }) forgets that channel\'s failures: nothing is sent again, the others stay', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'hello');
      await inbox.dispatch((_body, messages) => ({
        failures: [
          { messageIds: [messages[0]!.id], channel: 'slack', kind: 'uncertain', error: 'no answer after the request was sent' },
          { messageIds: [messages[0]!.id], channel: 'email', kind: 'rejected', error: 'bounced' },
        ],
      }));
      expect(await inbox.dropOutbox({ channel: 'slack' })).toBe(1);
      expect(await inbox.dropOutbox({ channel: 'slack' })).toBe(0);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 1 });
      expect((await store.view('alice').outbox()).failed.map((failure) => failure.channel)).toEqual(['email']);
      expect(await inbox.redriveOutbox({ channel: 'slack' })).toBe(0);
      expect(await inbox.dropOutbox()).toBe(1); // every channel's
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
      expect(await inbox.dispatch(() => undefined)).toBe(0);
      expect((await expectVigilError(inbox.dropOutbox('slack' as never), 'invalid_argument')).message).toBe('dropOutbox takes { channel? }');
      expect(await store.inbox('nobody').dropOutbox()).toBe(0);
      expect(await store.inboxes()).not.toContain('nobody');
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

    /** A report about the batch's first message, with one field changed. */
    const failure = (more: Record<string, unknown>) => (_body: string, messages: HeldMessage[]) => ({
      failures: [{ messageIds: [messages[0]!.id], channel: 'slack', kind: 'rejected', error: 'e', ...more }],
    });
    it.each([
      ['a string', () => 'ok', 'must be an object { failures? }, got "ok"'],
      ['a number', () => 5, 'must be an object { failures? }, got 5'],
      ['failures that are not an array', () => ({ failures: { 0: {} } }), 'failures must be an array'],
      ['a failure that is null', () => ({ failures: [null] }), 'failures[0].messageIds must name messages of this batch'],
      ['messageIds that are not an array', failure({ messageIds: 7 }), 'failures[0].messageIds must name messages of this batch'],
      ['no messageIds', failure({ messageIds: [] }), 'failures[0].messageIds must name messages of this batch'],
      ['one of the messageIds outside the batch', (body: string, messages: HeldMessage[]) => failure({ messageIds: [messages[0]!.id, 999_999] })(body, messages), 'failures[0].messageIds must name messages of this batch'],
      ['a channel that is not a string', failure({ channel: 5 }), 'failures[0].channel must be a channel name'],
      ['an empty channel', failure({ channel: '' }), 'failures[0].channel must be a channel name'],
      ['a channel of 65 characters', failure({ channel: 'c'.repeat(65) }), 'failures[0].channel must be a channel name'],
      ['another kind', failure({ kind: 'bounced' }), "failures[0].kind must be 'rejected', 'undeliverable' or 'uncertain'"],
      ['an error that is not a string', failure({ error: 404 }), 'failures[0].error must be a non-empty string'],
      ['an empty error', failure({ error: '' }), 'failures[0].error must be a non-empty string'],
    ])('a report with %s is refused (invalid_argument, saying what is wrong) and ignored; the batch stays sent', async (_what, send, problem) => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'x', 'y');
      const dispatched = record(store);
      const error = await expectVigilError(inbox.dispatch(send as never), 'invalid_argument');
      expect(error.message).toContain(`dispatch: the send's report ${problem}`);
      expect(error.message).toMatch(/; the batch is recorded as sent, the report ignored$/);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 2, undeliverable: 0, rejected: 0 });
      expect(dispatched).toEqual([['outbox:dispatched', { inboxId: 'alice', count: 2, held: 0 }]]);
    });

    it('a report naming a channel with NUL is refused (invalid_argument, naming the field) and ignored; the batch stays sent', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'x');
      const error = await expectVigilError(inbox.dispatch(failure({ channel: 'sl\u0000ck' }) as never), 'invalid_argument');
      expect(error.message).toMatch(/^failures\[0\]\.channel contains the NUL character/);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
    });

    it('a report of null or without failures is no failure; a 64-character channel, a message named twice and a long error with NUL are kept as they can be', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'first');
      expect(await inbox.dispatch(() => null as never)).toBe(1);
      await queue(inbox, 'empty');
      expect(await inbox.dispatch(() => ({}))).toBe(1);
      await queue(inbox, 'second');
      const channel = 'c'.repeat(64);
      const long = `a\u0000b${'x'.repeat(2_000)}`;
      expect(
        await inbox.dispatch((_body, messages) => ({
          failures: [
            { messageIds: [messages[0]!.id, messages[0]!.id], channel, kind: 'rejected', error: long },
            { messageIds: [messages[0]!.id], channel: 'email', kind: 'undeliverable', error: 'y'.repeat(2_000) },
          ],
        })),
      ).toBe(1);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 3, undeliverable: 1, rejected: 1 });
      const { failed } = await store.view('alice').outbox();
      expect(failed.map((f) => [f.body, f.channel, f.kind, f.error])).toEqual([
        ['second', 'email', 'undeliverable', 'y'.repeat(2_000)],
        ['second', channel, 'rejected', `a\uFFFDb${'x'.repeat(1_997)}…`],
      ]);
    });

    it("each send is told the inbox's contacts from its settings ({} without any), a copy of its own", async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const contexts: unknown[] = [];
      const send = (_body: string, _messages: HeldMessage[], context: { contacts: Record<string, string> }) => {
        contexts.push(structuredClone(context.contacts));
        context.contacts.slack = 'changed by the send';
      };
      const bob = store.inbox('bob');
      await queue(bob, 'hello');
      await bob.dispatch(send);
      const alice = store.inbox('alice');
      await alice.updateSettings({ contacts: { slack: 'D0123', email: 'ana@example.com' } });
      await queue(alice, 'one');
      await alice.dispatch(send);
      await queue(alice, 'two');
      await alice.dispatch(send);
      expect(contexts).toEqual([{}, { slack: 'D0123', email: 'ana@example.com' }, { slack: 'D0123', email: 'ana@example.com' }]);
      expect(await alice.settings()).toEqual({ contacts: { slack: 'D0123', email: 'ana@example.com' } });
    });

    it('redriveOutbox takes { channel? }: anything else, or a channel name over 64 characters, is invalid_argument', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      for (const options of [null, 'slack', 5]) {
        expect((await expectVigilError(inbox.redriveOutbox(options as never), 'invalid_argument')).message).toBe('redriveOutbox takes { channel? }');
      }
      expect((await expectVigilError(inbox.redriveOutbox({ channel: 'c'.repeat(65) }), 'invalid_argument')).message).toMatch(/^channel must be a non-empty string of at most 64 characters/);
      expect(await inbox.redriveOutbox({ channel: 'c'.repeat(64) })).toBe(0);
    });

    it('redriveOutbox on an inbox that was never written changes nothing and creates nothing; a bad channel is invalid_argument', async () => {
      const { store } = await open();
      expect(await store.inbox('ghost').redriveOutbox()).toBe(0);
      expect(await store.inboxes()).toEqual([]);
      await expectVigilError(store.inbox('ghost').redriveOutbox({ channel: '' }), 'invalid_argument');
    });

    it('the channels done with a batch are recorded with it: the next try of that batch is told them and their failures; sent, they are cleared', async () => {
      const { store, reopen } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'one', 'two');
      const told: SendContext['done'][] = [];
      await expect(
        inbox.dispatch(async (_body, messages, context) => {
          told.push(context.done);
          await context.progress({ channels: ['webhook'], failures: [] });
          await context.progress({
            channels: ['webhook', 'email', 'webhook'],
            failures: [{ messageIds: [messages[1]!.id], channel: 'email', kind: 'rejected', error: 'bounced' }],
          });
          throw new Error('slack is down');
        }),
      ).rejects.toThrow('slack is down');
      // Another process (a dispatcher started after a crash) is told the same.
      const again = (await reopen()).inbox('alice');
      let ids: number[] = [];
      expect(
        await again.dispatch((_body, messages, context) => {
          ids = messages.map((m) => m.id);
          told.push(context.done);
          return { failures: context.done.failures };
        }),
      ).toBe(2);
      expect(told).toEqual([
        { channels: [], failures: [] },
        { channels: ['webhook', 'email'], failures: [{ messageIds: [ids[1]], channel: 'email', kind: 'rejected', error: 'bounced' }] },
      ]);
      expect((await inbox.stats()).outbox).toMatchObject({ held: 0, sent: 2, rejected: 1 });
      await queue(inbox, 'three');
      await inbox.dispatch((_body, _messages, context) => {
        told.push(context.done);
      });
      expect(told[2]).toEqual({ channels: [], failures: [] });
    });

    it("progress recorded for one batch is not another batch's: a try that picks other messages is told nothing; at most once there is none", async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'one');
      const told: SendContext['done'][] = [];
      await expect(
        inbox.dispatch(async (_body, _messages, context) => {
          await context.progress({ channels: ['webhook'], failures: [] });
          throw new Error('slack is down');
        }),
      ).rejects.toThrow('slack is down');
      await queue(inbox, 'two'); // the next try sends both: another batch
      expect(await inbox.dispatch((_body, _messages, context) => void told.push(context.done))).toBe(2);
      await queue(inbox, 'three');
      await expect(
        inbox.dispatch(async (_body, _messages, context) => {
          await context.progress({ channels: ['webhook'], failures: [] });
          throw new Error('slack is down');
        }),
      ).rejects.toThrow('slack is down');
      await queue(inbox, 'four');
      expect(await inbox.dispatch((_body, _messages, context) => void told.push(context.done), { atMostOnce: true })).toBe(2);
      expect(told).toEqual([
        { channels: [], failures: [] },
        { channels: [], failures: [] },
      ]);
    });

    it('a progress that is not { channels: names, failures } is refused with invalid_argument, recording nothing', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'one');
      for (const [bad, problem] of [
        [{ channels: 'webhook' }, 'the progress channels must be a list of channel names; nothing recorded'],
        [{ channels: [''] }, 'the progress channels must be a list of channel names; nothing recorded'],
        [{ channels: ['x'], failures: [{ kind: 'lost' }] }, 'the progress failures[0].messageIds must name messages of this batch; nothing recorded'],
      ] as const) {
        const error = await expectVigilError(inbox.dispatch(async (_b, _m, context) => context.progress(bad as never)), 'invalid_argument');
        expect(error.message).toBe(`dispatch: ${problem}`);
      }
      const told: SendContext['done'][] = [];
      expect(await inbox.dispatch((_b, _m, context) => void told.push(context.done))).toBe(1);
      expect(told).toEqual([{ channels: [], failures: [] }]);
    });

    it("a send may report 'uncertain' messages (at most once, a channel could not know whether they landed): kept, listed and redrivable", async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await queue(inbox, 'one');
      await inbox.dispatch(
        (_body, messages) => ({ failures: [{ messageIds: [messages[0]!.id], channel: 'webhook', kind: 'uncertain', error: 'no answer within 10000 ms after the request was sent' }] }),
        { atMostOnce: true },
      );
      const { failed } = await store.view('alice').outbox();
      expect(failed.map((f) => [f.body, f.channel, f.kind])).toEqual([['one', 'webhook', 'uncertain']]);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 1 });
      expect(await inbox.redriveOutbox({ channel: 'webhook' })).toBe(1);
      const bodies: string[] = [];
      await inbox.dispatch((body, messages) => void bodies.push(`${body} for ${messages[0]!.channel}`));
      expect(bodies).toEqual(['one for webhook']);
    });
  });
}
