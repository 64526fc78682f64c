import { describe, expect, it } from 'vitest';
import type { Channel, OutgoingMessage } from '../../src/channels/channel.js';
import { createFakeClock, type Store } from '../../src/index.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { observe } from '../../src/observability/observe.js';
import { Dispatcher, type DispatcherOptions } from '../../src/runtime/dispatcher.js';
import { RuntimeEvents } from '../../src/events.js';
import { defer, gate, nextEvent, queueMessages, recordingChannel, tempStore } from './helpers.js';

const NO_POLL = 2 ** 31 - 1;

/** A started dispatcher, stopped after the test; its metrics come from the events it and the store emit (observe). */
async function startDispatcher(store: Store, channels: Channel[], options: Partial<DispatcherOptions> & { metrics?: Metrics } = {}) {
  const { metrics = createMetrics({ defaultMetrics: false }), ...rest } = options;
  const events = rest.events ?? store.events;
  defer(observe(events, { metrics }));
  const dispatcher = new Dispatcher({ store, channels, events, pollIntervalMs: NO_POLL, retry: { baseMs: 20, maxMs: 1_000 }, ...rest });
  await dispatcher.start();
  defer(() => dispatcher.stop({ graceMs: 0 }));
  return { dispatcher, events, metrics };
}

async function value(metric: { get(): Promise<{ values: { value: number; labels: Record<string, unknown> }[] }> }, labels: Record<string, string> = {}) {
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

describe('dispatcher', () => {
  it('sends held messages as one batch, and keeps to the store gap: paced waits, urgent goes at once', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const { store } = await tempStore({ clock: clock.now, outboxGapMs: 60_000 });
    const inbox = store.inbox('alice');
    await queueMessages(inbox, 'e1', ['hello', 'world']);
    const channel = recordingChannel();
    const events = store.events;
    const first = nextEvent(events, 'outbox:sent');
    const { dispatcher, metrics } = await startDispatcher(store, [channel], { events });

    expect(await first).toEqual({ inboxId: 'alice', count: 2, channels: ['recorder'] });
    expect(channel.received).toEqual([
      {
        inboxId: 'alice',
        body: 'hello\n\nworld',
        id: 'alice:1-2',
        contact: null,
        messages: [
          { id: 1, body: 'hello', urgent: false, channel: null },
          { id: 2, body: 'world', urgent: false, channel: null },
        ],
      },
    ]);

    await queueMessages(inbox, 'e2', ['paced']);
    await queueMessages(inbox, 'e3', [{ body: 'urgent!', urgent: true }]);
    const urgent = nextEvent(events, 'outbox:sent');
    dispatcher.wake();
    expect((await urgent).count).toBe(1);
    expect(channel.received.map((m) => m.body)).toEqual(['hello\n\nworld', 'urgent!']);
    expect((await inbox.stats()).outbox.held).toBe(1); // 'paced' waits out the gap
    // The held gauge, set after the dispatch from the held messages alone.
    for (let i = 0; i < 100 && (await value(metrics.outboxHeld)) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await value(metrics.outboxHeld)).toBe(1);

    clock.advance(60_000);
    const paced = nextEvent(events, 'outbox:sent');
    dispatcher.wake();
    await paced;
    expect(channel.received.map((m) => m.body)).toEqual(['hello\n\nworld', 'urgent!', 'paced']);
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 4, undeliverable: 0, rejected: 0 });
    expect(await value(metrics.outboxSent, { channel: 'recorder' })).toBe(4);
  });

  it('sends a paced message when the gap has passed, woken by its one timer with the poll off', async () => {
    const { store } = await tempStore({ outboxGapMs: 150 });
    const inbox = store.inbox('bob');
    const channel = recordingChannel();
    const events = store.events;
    const first = nextEvent(events, 'outbox:sent');
    await queueMessages(inbox, 'e1', ['one']);
    await startDispatcher(store, [channel], { events });
    await first;
    const second = nextEvent(events, 'outbox:sent');
    await queueMessages(inbox, 'e2', ['two']);
    // The run that queued it says so; the gap has not passed, so this pass sends
    // nothing and only the timer it arms from nextWake().sendAt can send it.
    events.emit('run:finished', { inboxId: 'bob', gen: 1, eventIds: [2], outcome: 'messages', durationMs: 1 });
    await second;
    expect(channel.received.map((m) => m.body)).toEqual(['one', 'two']);
  });

  it('retries a failing channel with exponential backoff; the messages arrive once it recovers, once', async () => {
    const { store } = await tempStore();
    const inbox = store.inbox('carol');
    await queueMessages(inbox, 'e1', ['important']);
    const channel = recordingChannel();
    channel.failNext(3, 'connection refused');
    const events = store.events;
    const failures: { channel: string; error: string; retryInMs: number }[] = [];
    events.on('channel:failed', ({ channel: name, error, retryInMs }) => failures.push({ channel: name, error, retryInMs }));
    const sent = nextEvent(events, 'outbox:sent');
    const { metrics } = await startDispatcher(store, [channel], { events });

    await sent;
    expect(failures).toEqual([
      { channel: 'recorder', error: 'connection refused', retryInMs: 20 },
      { channel: 'recorder', error: 'connection refused', retryInMs: 40 },
      { channel: 'recorder', error: 'connection refused', retryInMs: 80 },
    ]);
    expect(channel.received.map((m) => [m.id, m.body])).toEqual([['carol:1-1', 'important']]);
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
    expect(await value(metrics.channelFailures, { channel: 'recorder' })).toBe(3);
    expect(await value(metrics.outboxHeld)).toBe(0);
  });

  it('on a retry, sends the same batch only to the channels that did not take it', async () => {
    const { store } = await tempStore();
    await queueMessages(store.inbox('dave'), 'e1', ['hi']);
    const steady = recordingChannel('steady');
    const flaky = recordingChannel('flaky');
    flaky.failNext(1);
    const events = store.events;
    const failed = nextEvent(events, 'channel:failed');
    const sent = nextEvent(events, 'outbox:sent');
    await startDispatcher(store, [steady, flaky], { events });

    expect((await failed).channel).toBe('flaky');
    expect(await sent).toEqual({ inboxId: 'dave', count: 1, channels: ['steady', 'flaky'] });
    expect(steady.received.map((m) => m.id)).toEqual(['dave:1-1']);
    expect(flaky.received.map((m) => m.id)).toEqual(['dave:1-1']);
  });

  /**
   * One held message to a channel whose first send never settles (and
   * ignores its signal): the dispatcher must give that send up, then send
   * again. What the channel took, once it did.
   */
  async function expectHangingSendCut(store: Store, options: Partial<DispatcherOptions>): Promise<OutgoingMessage[]> {
    await queueMessages(store.inbox('erin'), 'e1', ['hi']);
    const received: OutgoingMessage[] = [];
    let calls = 0;
    const hanging: Channel = {
      name: 'hanging',
      async send(message) {
        calls += 1;
        if (calls === 1) await new Promise(() => undefined);
        received.push(message);
      },
    };
    const events = store.events;
    const failed = nextEvent(events, 'channel:failed');
    const sent = nextEvent(events, 'outbox:sent');
    await startDispatcher(store, [hanging], { events, ...options });
    expect((await failed).error).toMatch(/timeout|aborted/i);
    await sent;
    return received;
  }

  it('gives up on a channel send at sendTimeoutMs, even one that ignores its signal, and retries', async () => {
    const { store } = await tempStore();
    const received = await expectHangingSendCut(store, { sendTimeoutMs: 50 });
    expect(received.map((m) => m.body)).toEqual(['hi']);
  });

  it('stop() aborts a send in flight, keeps its messages held, and closes the channels', async () => {
    const { store } = await tempStore();
    const inbox = store.inbox('frank');
    await queueMessages(inbox, 'e1', ['later']);
    const entered = gate<AbortSignal>();
    let closed = false;
    const slow: Channel = {
      name: 'slow',
      send: (_message, signal) =>
        new Promise((_, reject) => {
          entered.open(signal);
          signal.addEventListener('abort', () => reject(signal.reason as Error));
        }),
      close: async () => {
        closed = true;
      },
    };
    const { dispatcher } = await startDispatcher(store, [slow]);
    const signal = await entered.promise;

    await dispatcher.stop({ graceMs: 0 });
    expect(signal.aborted).toBe(true);
    expect(closed).toBe(true);
    expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
  });

  it('stop() first sends what is due: replies queued with no wake-up go out before it returns', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const { store, reopen } = await tempStore({ clock: clock.now, outboxGapMs: 60_000 });
    const channel = recordingChannel();
    const { dispatcher } = await startDispatcher(store, [channel]);
    // Written through another store object, and no run:finished: nothing wakes the dispatcher, and its poll is off.
    const other = await reopen({ clock: clock.now, outboxGapMs: 60_000 });
    await queueMessages(other.inbox('hana'), 'e1', ['last reply']);
    await queueMessages(other.inbox('ivan'), 'e1', ['first']);
    await dispatcher.stop({ graceMs: 5_000 });
    expect(channel.received.map((m) => [m.inboxId, m.body]).sort()).toEqual([
      ['hana', 'last reply'],
      ['ivan', 'first'],
    ]);
    expect((await store.inbox('hana').stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  });

  it('stop() leaves paced messages whose gap has not passed held, and sends nothing new with graceMs 0', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const { store, reopen } = await tempStore({ clock: clock.now, outboxGapMs: 60_000 });
    const inbox = store.inbox('jo');
    await queueMessages(inbox, 'e1', ['sent now']);
    const channel = recordingChannel();
    const events = store.events;
    const first = nextEvent(events, 'outbox:sent');
    const { dispatcher } = await startDispatcher(store, [channel], { events });
    await first;
    const other = await reopen({ clock: clock.now, outboxGapMs: 60_000 });
    await queueMessages(other.inbox('jo'), 'e2', ['within the gap']);
    await queueMessages(other.inbox('kai'), 'e1', ['due, but no grace']);
    await dispatcher.stop({ graceMs: 0 });
    expect(channel.received.map((m) => m.body)).toEqual(['sent now']);
    expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 1, undeliverable: 0, rejected: 0 });
    expect((await store.inbox('kai').stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
  });

  it('at-most-once: a channel that fails loses the batch (recorded as sent, never retried), and says so; the others got it once', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const inbox = store.inbox('lena');
    await queueMessages(inbox, 'e1', ['only once']);
    const good = recordingChannel('good');
    const bad = recordingChannel('bad');
    bad.failNext(1, 'receiver down');
    const events = store.events;
    const lost = nextEvent(events, 'outbox:lost');
    const { dispatcher, metrics } = await startDispatcher(store, [good, bad], { events, delivery: 'at-most-once' });
    expect(await lost).toEqual({ inboxId: 'lena', channel: 'bad', count: 1, error: 'receiver down' });
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
    // The bad channel works again, and the dispatcher looks again after its retry delay: nothing is resent.
    await new Promise((resolve) => setTimeout(resolve, 100));
    dispatcher.wake('lena');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(good.received.map((m) => m.body)).toEqual(['only once']);
    expect(bad.received).toEqual([]);
    expect(await value(metrics.outboxLost, { channel: 'bad' })).toBe(1);
    expect(await value(metrics.outboxSent, { channel: 'good' })).toBe(1);
  });

  it('at-least-once (the default), the same failure keeps the batch held and retries it to the failed channel only', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const inbox = store.inbox('milo');
    await queueMessages(inbox, 'e1', ['until it lands']);
    const good = recordingChannel('good');
    const bad = recordingChannel('bad');
    bad.failNext(1, 'receiver down');
    const events = store.events;
    const sent = nextEvent(events, 'outbox:sent');
    await startDispatcher(store, [good, bad], { events });
    await sent;
    expect(good.received.map((m) => m.body)).toEqual(['until it lands']);
    expect(bad.received.map((m) => m.body)).toEqual(['until it lands']);
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  });

  it("takes its send deadline from the store's lease: on a store whose leases last 200 ms, a hanging send is cut at 50 ms", async () => {
    const { store } = await tempStore({ leaseTtlMs: 200 });
    // No sendTimeoutMs: cut and retried, well before the 200 ms reservation would let another dispatcher repeat it.
    const received = await expectHangingSendCut(store, {});
    expect(received.map((m) => m.body)).toEqual(['hi']);
  });

  it("a leaseTtlMs other than the store's is invalid_options: the deadline must follow the store's leases", async () => {
    const { store } = await tempStore({ leaseTtlMs: 10_000 });
    const channels = [recordingChannel('mail')];
    expect(() => new Dispatcher({ store, channels, events: new RuntimeEvents(), leaseTtlMs: 120_000 })).toThrow(
      expect.objectContaining({ code: 'invalid_options', message: "dispatcher: leaseTtlMs (120000) is not the store's (10000); leave it out, it is read from the store" }),
    );
    expect(() => new Dispatcher({ store, channels, events: new RuntimeEvents(), leaseTtlMs: 10_000 })).not.toThrow();
  });

  it('a delivery mode it does not know is invalid_options', () => {
    expect(() => new Dispatcher({ store: null as unknown as Store, channels: [], events: new RuntimeEvents(), delivery: 'exactly-once' as 'at-most-once' })).toThrow(
      expect.objectContaining({ code: 'invalid_options' }),
    );
  });

  it("wakes on the store's outbox hint when a finish queues messages, with its poll off", async () => {
    const { store } = await tempStore();
    const channel = recordingChannel();
    const events = store.events;
    await startDispatcher(store, [channel], { events });
    const sent = nextEvent(events, 'outbox:sent');
    await queueMessages(store.inbox('gina'), 'e1', ['reply']);
    await sent;
    expect(channel.received.map((m) => m.body)).toEqual(['reply']);
  });
});
