import { describe, expect, it } from 'vitest';
import type { HeldMessage, Inbox, OutboxMessage } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const GAP = 60_000;

/** Queues messages the way a run does: a lease holder's finish. */
async function queue(inbox: Inbox, ...messages: OutboxMessage[]): Promise<void> {
  const gen = await lease(inbox, 'W');
  expect(await inbox.finish('W', gen, [], { messages })).toBe(true);
}

/** A send that records what it was given. */
function recorder(): { bodies: string[]; batches: HeldMessage[][]; send: (body: string, messages: HeldMessage[]) => void } {
  const bodies: string[] = [];
  const batches: HeldMessage[][] = [];
  return {
    bodies,
    batches,
    send: (body, messages) => {
      bodies.push(body);
      batches.push(messages);
    },
  };
}

/**
 * A send held open until `open()`. `entered` resolves once a send has
 * begun, i.e. once its batch is reserved: a test moves the clock only after
 * that, or on a networked store the reservation may read the moved clock.
 */
function gate(): { wait: Promise<void>; open: () => void; enter: () => void; entered: Promise<void> } {
  let open!: () => void;
  let enter!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  return { wait, open, enter, entered };
}

export function r9Outbox(target: StoreTarget): void {
  describe(`R9 outbox (${target.name})`, () => {
    const open = useStore(target);

    it('sends every held message as one body joined by a blank line, in queue order', async () => {
      const { store } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'first', 'second');
      await queue(inbox, { body: 'third' });
      expect((await inbox.stats()).outbox).toEqual({ held: 3, sent: 0, undeliverable: 0, rejected: 0 });
      const r = recorder();
      expect(await inbox.dispatch(r.send)).toBe(3);
      expect(r.bodies).toEqual(['first\n\nsecond\n\nthird']);
      expect(r.batches[0]!.map((m) => [m.body, m.urgent])).toEqual([
        ['first', false],
        ['second', false],
        ['third', false],
      ]);
      expect(new Set(r.batches[0]!.map((m) => m.id)).size).toBe(3);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 3, undeliverable: 0, rejected: 0 });
      expect(await inbox.dispatch(r.send)).toBe(0);
      expect(r.bodies).toHaveLength(1);
    });

    it('an empty outbox sends nothing; an inbox never written sends nothing', async () => {
      const { store } = await open({ outboxGapMs: GAP });
      const r = recorder();
      expect(await store.inbox('ghost').dispatch(r.send)).toBe(0);
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      expect(await inbox.dispatch(r.send)).toBe(0);
      expect(r.bodies).toEqual([]);
    });

    it('the gap edge: held at lastSend + gap - 1, sent at lastSend + gap', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'one');
      const r = recorder();
      clock.set(T0 + 100);
      expect(await inbox.dispatch(r.send)).toBe(1); // paced send at T0 + 100
      clock.set(T0 + 200);
      await queue(inbox, 'two');
      clock.set(T0 + 300);
      await queue(inbox, 'three');
      clock.set(T0 + 100 + GAP - 1);
      expect(await inbox.dispatch(r.send)).toBe(0);
      expect((await inbox.stats()).outbox).toEqual({ held: 2, sent: 1, undeliverable: 0, rejected: 0 });
      clock.set(T0 + 100 + GAP);
      expect(await inbox.dispatch(r.send)).toBe(2);
      expect(r.bodies).toEqual(['one', 'two\n\nthree']);
    });

    it('the next send time stays exact with hundreds of messages held (what the wake index serves)', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'first');
      const r = recorder();
      expect(await inbox.dispatch(r.send)).toBe(1); // paced send at T0
      clock.set(T0 + 10);
      await queue(inbox, ...Array.from({ length: 400 }, (_, i) => `held ${i}`));
      expect(await store.nextWake()).toMatchObject({ sendAt: T0 + GAP });
      clock.set(T0 + 20);
      await queue(inbox, { body: 'urgent', urgent: true });
      expect(await store.nextWake()).toMatchObject({ sendAt: T0 + 20 });
      expect(await inbox.dispatch(r.send)).toBe(1);
      expect(r.bodies.at(-1)).toBe('urgent');
      expect(await store.nextWake()).toMatchObject({ sendAt: T0 + GAP });
      clock.set(T0 + GAP);
      expect(await inbox.dispatch(r.send)).toBe(400);
      expect(await store.nextWake()).toMatchObject({ sendAt: null });
    });

    it('an urgent message goes at once, bypassing the gap, and leaves paced messages held', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'paced 1');
      const r = recorder();
      await inbox.dispatch(r.send); // paced send at T0
      clock.set(T0 + 10);
      await queue(inbox, 'paced 2', { body: 'server on fire', urgent: true });
      expect(await inbox.dispatch(r.send)).toBe(1);
      expect(r.bodies).toEqual(['paced 1', 'server on fire']);
      expect(r.batches[1]).toMatchObject([{ body: 'server on fire', urgent: true }]);
      expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 2, undeliverable: 0, rejected: 0 });
    });

    it('urgent sends do not count against the gap: the next paced send is still due at lastPaced + gap', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      const r = recorder();
      await queue(inbox, 'paced 1');
      await inbox.dispatch(r.send); // paced at T0
      clock.set(T0 + GAP - 10);
      await queue(inbox, { body: 'urgent', urgent: true });
      expect(await inbox.dispatch(r.send)).toBe(1);
      await queue(inbox, 'paced 2');
      clock.set(T0 + GAP);
      expect(await inbox.dispatch(r.send)).toBe(1);
      expect(r.bodies).toEqual(['paced 1', 'urgent', 'paced 2']);
    });

    it('an urgent send before any paced one leaves the gap open', async () => {
      const { store } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      const r = recorder();
      await queue(inbox, { body: 'urgent', urgent: true });
      expect(await inbox.dispatch(r.send)).toBe(1);
      await queue(inbox, 'paced');
      expect(await inbox.dispatch(r.send)).toBe(1);
      expect(r.bodies).toEqual(['urgent', 'paced']);
    });

    it('when the gap is open, urgent and paced messages go together in one body', async () => {
      const { store } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'a', { body: 'b', urgent: true }, 'c');
      const r = recorder();
      expect(await inbox.dispatch(r.send)).toBe(3);
      expect(r.bodies).toEqual(['a\n\nb\n\nc']);
    });

    it('outboxGapMs 0 sends every dispatch', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      const r = recorder();
      await queue(inbox, 'a');
      expect(await inbox.dispatch(r.send)).toBe(1);
      await queue(inbox, 'b');
      expect(await inbox.dispatch(r.send)).toBe(1);
      expect(r.bodies).toEqual(['a', 'b']);
    });

    it('default (at least once): a throwing send leaves the messages held, gives the gap back and rethrows', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'a', 'b');
      const failure = new Error('channel down');
      await expect(
        inbox.dispatch(() => {
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect((await inbox.stats()).outbox).toEqual({ held: 2, sent: 0, undeliverable: 0, rejected: 0 });
      clock.advance(1); // well inside what would have been the gap
      const r = recorder();
      expect(await inbox.dispatch(r.send)).toBe(2);
      expect(r.bodies).toEqual(['a\n\nb']);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 2, undeliverable: 0, rejected: 0 });
    });

    it('default: an async send that rejects is handled the same way', async () => {
      const { store } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'a');
      await expect(inbox.dispatch(async () => Promise.reject(new Error('timeout')))).rejects.toThrow('timeout');
      expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
    });

    it('default: the messages are recorded as sent only after send returns', async () => {
      const { store } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'a');
      let during: unknown;
      await inbox.dispatch(async () => {
        during = (await inbox.stats()).outbox;
      });
      expect(during).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
    });

    it('atMostOnce: recorded as sent before send runs; a throwing send leaves them sent and rethrows', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      await queue(inbox, 'a', 'b');
      let during: unknown;
      await expect(
        inbox.dispatch(
          async () => {
            during = (await inbox.stats()).outbox;
            throw new Error('crash after recording');
          },
          { atMostOnce: true },
        ),
      ).rejects.toThrow('crash after recording');
      expect(during).toEqual({ held: 0, sent: 2, undeliverable: 0, rejected: 0 });
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 2, undeliverable: 0, rejected: 0 });
      clock.advance(GAP);
      const r = recorder();
      expect(await inbox.dispatch(r.send, { atMostOnce: true })).toBe(0);
      expect(r.bodies).toEqual([]);
    });

    it('atMostOnce keeps the gap and urgent rules', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP });
      const inbox = store.inbox('alice');
      const r = recorder();
      await queue(inbox, 'a');
      expect(await inbox.dispatch(r.send, { atMostOnce: true })).toBe(1);
      await queue(inbox, 'b', { body: 'now', urgent: true });
      expect(await inbox.dispatch(r.send, { atMostOnce: true })).toBe(1);
      clock.set(T0 + GAP - 1);
      expect(await inbox.dispatch(r.send, { atMostOnce: true })).toBe(0);
      clock.set(T0 + GAP);
      expect(await inbox.dispatch(r.send, { atMostOnce: true })).toBe(1);
      expect(r.bodies).toEqual(['a', 'now', 'b']);
    });

    it('two dispatchers at once over two handles never send the same message', async () => {
      const { store, reopen } = await open({ outboxGapMs: GAP });
      const other = await reopen();
      const inbox = store.inbox('alice');
      await queue(inbox, 'a', 'b', { body: 'c', urgent: true });
      const sent: string[] = [];
      const send = async (_body: string, messages: HeldMessage[]): Promise<void> => {
        await Promise.resolve();
        sent.push(...messages.map((m) => m.body));
      };
      const counts = await Promise.all([inbox.dispatch(send), other.inbox('alice').dispatch(send), inbox.dispatch(send)]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
      expect(sent.sort()).toEqual(['a', 'b', 'c']);
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 3, undeliverable: 0, rejected: 0 });
    });

    it('while a send is in flight another dispatcher sends nothing, urgent messages included', async () => {
      const { store, reopen } = await open({ outboxGapMs: GAP });
      const other = (await reopen()).inbox('alice');
      const inbox = store.inbox('alice');
      await queue(inbox, 'a');
      const g = gate();
      const first = inbox.dispatch(async () => {
        g.enter();
        await g.wait;
      });
      await g.entered; // the batch is reserved: the send is in flight
      await queue(inbox, { body: 'urgent', urgent: true });
      const r = recorder();
      expect(await other.dispatch(r.send)).toBe(0);
      g.open();
      expect(await first).toBe(1);
      expect(await other.dispatch(r.send)).toBe(1);
      expect(r.bodies).toEqual(['urgent']);
    });

    it('a send that outlives its reservation (leaseTtlMs) is sent again by the next dispatcher: at least once', async () => {
      const { store, reopen, clock } = await open({ outboxGapMs: GAP, leaseTtlMs: 5_000 });
      const other = (await reopen()).inbox('alice');
      const inbox = store.inbox('alice');
      await queue(inbox, 'a');
      const g = gate();
      const stuck = inbox.dispatch(async () => {
        g.enter();
        await g.wait;
      });
      await g.entered;
      clock.set(T0 + 5_000);
      const r = recorder();
      expect(await other.dispatch(r.send)).toBe(0); // reserved up to and including now + leaseTtlMs
      clock.set(T0 + 5_001);
      expect(await other.dispatch(r.send)).toBe(1);
      expect(r.bodies).toEqual(['a']);
      g.open();
      await stuck;
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
    });

    it('a send that fails after its batch was already resent by another dispatcher does not give the gap back', async () => {
      const { store, reopen, clock } = await open({ outboxGapMs: GAP, leaseTtlMs: 5_000 });
      const other = (await reopen()).inbox('alice');
      const inbox = store.inbox('alice');
      await queue(inbox, 'a');
      const g = gate();
      const slow = inbox.dispatch(async () => {
        g.enter();
        await g.wait;
        throw new Error('timed out at last');
      }); // a paced send at T0
      await g.entered; // (without it this flaked ~1 in 10 on PostgreSQL)
      clock.set(T0 + 5_001);
      const r = recorder();
      expect(await other.dispatch(r.send)).toBe(1); // the reservation lapsed: 'a' goes out here
      g.open();
      await expect(slow).rejects.toThrow('timed out at last');
      expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
      await queue(inbox, 'b');
      clock.set(T0 + GAP - 1);
      expect(await other.dispatch(r.send)).toBe(0); // 'a' went out at T0: the gap still holds
      clock.set(T0 + GAP);
      expect(await other.dispatch(r.send)).toBe(1);
      expect(r.bodies).toEqual(['a', 'b']);
    });

    it('messages queued by a refused finish are never sent', async () => {
      const { store, clock } = await open({ outboxGapMs: GAP, leaseTtlMs: 1_000 });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      const gen = await lease(inbox, 'A');
      const [e] = await inbox.claimBatch('A', gen);
      clock.advance(1_001);
      expect(await inbox.finish('A', gen, [e!.id], { messages: ['ghost'] })).toBe(false);
      const r = recorder();
      expect(await inbox.dispatch(r.send)).toBe(0);
    });

    it.each([
      ['no function', undefined],
      ['a string', 'console'],
    ])('dispatch with %s is invalid_argument', async (_what, send) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await queue(inbox, 'a');
      expect((await expectVigilError(inbox.dispatch(send as never), 'invalid_argument')).message).toBe('dispatch needs a send function');
      expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
    });
  });
}
