/**
 * What the dispatcher does with a send it cannot know landed (`uncertain`),
 * and with the channels that already took a batch, as the store records them.
 */
import { describe, expect, it } from 'vitest';
import { uncertain, type Channel, type OutgoingMessage } from '../../src/channels/channel.js';
import type { Store } from '../../src/index.js';
import { Dispatcher, type DispatcherOptions } from '../../src/runtime/dispatcher.js';
import { defer, nextEvent, queueMessages, recordingChannel, tempStore } from './helpers.js';

const NO_POLL = 2 ** 31 - 1;

async function startDispatcher(store: Store, channels: Channel[], options: Partial<DispatcherOptions> = {}): Promise<Dispatcher> {
  const dispatcher = new Dispatcher({ store, channels, pollIntervalMs: NO_POLL, retry: { baseMs: 20, maxMs: 1_000 }, ...options });
  await dispatcher.start();
  defer(() => dispatcher.stop({ graceMs: 0 }));
  return dispatcher;
}

/** A channel that answers `uncertain` to its first `n` sends, recording every message it was given. */
function unsureChannel(name: string, n: number): Channel & { given: OutgoingMessage[] } {
  const given: OutgoingMessage[] = [];
  return {
    name,
    given,
    async send(message) {
      given.push(message);
      if (given.length <= n) return uncertain(`${name} did not answer within 50 ms after the request was sent`);
    },
  };
}

describe('dispatcher: uncertain sends', () => {
  it('at-most-once: an uncertain send is never sent again on its own; it is kept as uncertain, with its reason, for an operator to resend', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const inbox = store.inbox('nora');
    await queueMessages(inbox, 'e1', ['maybe landed']);
    const unsure = unsureChannel('webhook', 1);
    const good = recordingChannel('good');
    const failed = nextEvent(store.events, 'outbox:failed');
    const lost: unknown[] = [];
    store.events.on('outbox:lost', (e) => lost.push(e));
    const dispatcher = await startDispatcher(store, [good, unsure], { delivery: 'at-most-once' });
    expect(await failed).toMatchObject({ inboxId: 'nora', channel: 'webhook', kind: 'uncertain', error: 'webhook did not answer within 50 ms after the request was sent' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    dispatcher.wake('nora');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(unsure.given).toHaveLength(1);
    expect(lost).toEqual([]);
    const { failed: listed } = await store.view('nora').outbox();
    expect(listed.map((f) => [f.body, f.channel, f.kind])).toEqual([['maybe landed', 'webhook', 'uncertain']]);
    // The operator resends it: it goes to that channel alone.
    const sent = nextEvent(store.events, 'outbox:sent');
    expect(await inbox.redriveOutbox({ channel: 'webhook' })).toBe(1);
    await sent;
    expect(unsure.given.map((m) => m.body)).toEqual(['maybe landed', 'maybe landed']);
    expect(good.received.map((m) => m.body)).toEqual(['maybe landed']);
  });

  it('at-most-once: a send cut off at the send deadline is uncertain too, not lost', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    await queueMessages(store.inbox('olga'), 'e1', ['slow']);
    const hanging: Channel = { name: 'hanging', send: () => new Promise(() => undefined) };
    const failed = nextEvent(store.events, 'outbox:failed');
    await startDispatcher(store, [hanging], { delivery: 'at-most-once', sendTimeoutMs: 50 });
    expect(await failed).toMatchObject({ channel: 'hanging', kind: 'uncertain', error: 'send timeout: the hanging channel did not finish within 50 ms' });
  });

  it('at-least-once: an uncertain send is sent again, under the same batch id (the idempotency key receivers dedupe on)', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const inbox = store.inbox('pia');
    await queueMessages(inbox, 'e1', ['until sure']);
    const unsure = unsureChannel('webhook', 2);
    const failed = nextEvent(store.events, 'channel:failed');
    const sent = nextEvent(store.events, 'outbox:sent');
    await startDispatcher(store, [unsure]);
    expect((await failed).error).toBe('uncertain: webhook did not answer within 50 ms after the request was sent');
    await sent;
    expect(unsure.given.map((m) => m.id)).toEqual(['pia:1-1', 'pia:1-1', 'pia:1-1']);
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  });
});

describe('dispatcher: which channels took a batch is in the store', () => {
  it('a new dispatcher (another process, after a crash) sends a batch only to the channels that had not taken it', async () => {
    const { store, reopen } = await tempStore({ outboxGapMs: 0 });
    await queueMessages(store.inbox('quinn'), 'e1', ['once each']);
    const steady = recordingChannel('steady');
    const down = recordingChannel('down');
    down.failNext(1_000, 'receiver down');
    const failed = nextEvent(store.events, 'channel:failed');
    const first = await startDispatcher(store, [steady, down], { retry: { baseMs: 60_000, maxMs: 60_000 } });
    await failed;
    await first.stop({ graceMs: 0 });
    // A dispatcher that knows nothing of the first: only the store tells it who took the batch.
    const other = await reopen();
    const steady2 = recordingChannel('steady');
    const down2 = recordingChannel('down');
    const sent = nextEvent(other.events, 'outbox:sent');
    await startDispatcher(other, [steady2, down2]);
    await sent;
    expect(steady.received.map((m) => m.body)).toEqual(['once each']);
    expect(steady2.received).toEqual([]);
    expect(down2.received.map((m) => m.id)).toEqual(['quinn:1-1']);
  });
});
