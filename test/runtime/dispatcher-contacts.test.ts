/**
 * The dispatcher with per-person addresses and channel results: each
 * inbox's messages reach its own contact on each channel and nobody else;
 * a channel that needs an address the inbox has not got marks them
 * undeliverable there (the others still deliver); a rejection is recorded,
 * not retried; both are redrivable once fixed, to that channel alone.
 */
import { describe, expect, it } from 'vitest';
import type { Channel, OutgoingMessage } from '../../src/channels/channel.js';
import { createSlackChannel } from '../../src/channels/slack.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { observe } from '../../src/observability/observe.js';
import { Dispatcher } from '../../src/runtime/dispatcher.js';
import type { Store } from '../../src/index.js';
import { startFakeSlack } from '../../examples/fakes/slack.js';
import { defer, eventually, nextEvent, queueMessages, recordingChannel, tempStore } from './helpers.js';

const TOKEN = 'xoxb-dispatcher-test-token';

async function start(store: Store, channels: Channel[]) {
  const metrics = createMetrics({ defaultMetrics: false });
  defer(observe(store.events, { metrics }));
  const dispatcher = new Dispatcher({ store, channels, pollIntervalMs: 2 ** 31 - 1, retry: { baseMs: 10, maxMs: 100 } });
  await dispatcher.start();
  defer(() => dispatcher.stop({ graceMs: 0 }));
  return { dispatcher, metrics };
}

async function counter(metrics: ReturnType<typeof createMetrics>, labels: Record<string, string>): Promise<number> {
  const { values } = await metrics.outboxFailed.get();
  return values.filter((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

describe('dispatcher: contacts and channel results', () => {
  it("two people's replies reach their own Slack DMs, and neither sees the other's", async () => {
    const slack = await startFakeSlack({ token: TOKEN, channels: ['D0ANA', 'D0BEN'] });
    defer(() => slack.close());
    const { store } = await tempStore({ outboxGapMs: 0 });
    await store.inbox('ana').updateSettings({ contacts: { slack: 'D0ANA' } });
    await store.inbox('ben').updateSettings({ contacts: { slack: 'D0BEN' } });
    await start(store, [createSlackChannel({ botToken: TOKEN, apiUrl: slack.apiUrl })]);
    await queueMessages(store.inbox('ana'), 'e1', ['for ana']);
    await queueMessages(store.inbox('ben'), 'e1', ['for ben']);
    await eventually(async () => slack.posted.size === 2, 'both posted');
    expect(Object.fromEntries(slack.posted)).toEqual({ D0ANA: ['for ana'], D0BEN: ['for ben'] });
  });

  it('no contact for a channel that needs one: undeliverable there (recorded, counted), delivered on the others; redriven once set, to that channel alone', async () => {
    const slack = await startFakeSlack({ token: TOKEN, channels: ['D0ANA'] });
    defer(() => slack.close());
    const { store } = await tempStore({ outboxGapMs: 0 });
    const recorder = recordingChannel('webhook');
    const { metrics } = await start(store, [createSlackChannel({ botToken: TOKEN, apiUrl: slack.apiUrl }), recorder]);
    const inbox = store.inbox('ana');
    const failed = nextEvent(store.events, 'outbox:failed');
    await queueMessages(inbox, 'e1', ['hello']);
    expect(await failed).toMatchObject({ inboxId: 'ana', channel: 'slack', kind: 'undeliverable', error: expect.stringContaining('contacts.slack') });
    expect(recorder.received.map((m) => m.body)).toEqual(['hello']);
    expect(slack.requests).toEqual([]); // never sent to anyone
    expect((await inbox.stats()).outbox).toMatchObject({ held: 0, undeliverable: 1 });
    expect(await counter(metrics, { channel: 'slack', kind: 'undeliverable' })).toBe(1);

    await inbox.updateSettings({ contacts: { slack: 'D0ANA' } });
    expect(await inbox.redriveOutbox({ channel: 'slack' })).toBe(1);
    await eventually(async () => slack.posted.get('D0ANA')?.length === 1, 'the redriven message reached Slack');
    expect(slack.posted.get('D0ANA')).toEqual(['hello']);
    expect(recorder.received).toHaveLength(1); // not sent to the webhook a second time
    await eventually(async () => (await inbox.stats()).outbox.held === 0, 'the redriven copy recorded as sent');
  });

  it('a rejection (a revoked token) is recorded once and not retried; the other channels are not held back by it', async () => {
    const slack = await startFakeSlack({ token: TOKEN, channels: ['D0ANA'] });
    defer(() => slack.close());
    slack.revoke();
    const { store } = await tempStore({ outboxGapMs: 0 });
    await store.inbox('ana').updateSettings({ contacts: { slack: 'D0ANA' } });
    const recorder = recordingChannel('webhook');
    await start(store, [createSlackChannel({ botToken: TOKEN, apiUrl: slack.apiUrl }), recorder]);
    const sent = nextEvent(store.events, 'outbox:sent');
    await queueMessages(store.inbox('ana'), 'e1', ['hello']);
    await sent;
    await new Promise((resolve) => setTimeout(resolve, 150)); // ten backoff periods: none is used
    expect(slack.requests).toHaveLength(1);
    expect(recorder.received).toHaveLength(1);
    const [failure] = (await store.view('ana').outbox()).failed;
    expect(failure).toMatchObject({ channel: 'slack', kind: 'rejected', error: 'slack refused the message: token_revoked' });
  });

  it("a channel's Retry-After holds the inbox at least that long; what the others took is not sent to them again", async () => {
    const slack = await startFakeSlack({ token: TOKEN, channels: ['D0ANA'] });
    defer(() => slack.close());
    slack.answerNext({ status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': '1' } });
    const { store } = await tempStore({ outboxGapMs: 0 });
    await store.inbox('ana').updateSettings({ contacts: { slack: 'D0ANA' } });
    const recorder = recordingChannel('webhook');
    await start(store, [createSlackChannel({ botToken: TOKEN, apiUrl: slack.apiUrl }), recorder]);
    const retried = nextEvent(store.events, 'channel:failed');
    await queueMessages(store.inbox('ana'), 'e1', ['hello']);
    expect((await retried).retryInMs).toBeGreaterThanOrEqual(1_000);
    await eventually(async () => slack.posted.get('D0ANA')?.length === 1, 'posted after the Retry-After');
    expect(recorder.received).toHaveLength(1);
  });

  it("each message's contact is the inbox's own: a message's OutgoingMessage carries it", async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    await store.inbox('ana').updateSettings({ contacts: { recorder: 'ana@example.com' } });
    const recorder = recordingChannel();
    await start(store, [recorder]);
    const sent = nextEvent(store.events, 'outbox:sent');
    await queueMessages(store.inbox('ana'), 'e1', ['hi']);
    await sent;
    expect(recorder.received.map((m: OutgoingMessage) => m.contact)).toEqual(['ana@example.com']);
  });
});
