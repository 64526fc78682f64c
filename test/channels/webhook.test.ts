import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/channel.js';
import { createWebhookChannel } from '../../src/channels/webhook.js';
import { Dispatcher } from '../../src/runtime/dispatcher.js';
import { RuntimeEvents } from '../../src/events.js';
import { defer, nextEvent, queueMessages, tempStore } from '../runtime/helpers.js';
import { startReceiver } from './receiver.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const message: OutgoingMessage = {
  inboxId: 'alice',
  body: 'first\n\nsecond',
  messages: [
    { id: 7, body: 'first', urgent: false, channel: null },
    { id: 8, body: 'second', urgent: true, channel: null },
  ],
  id: 'alice:7-8',
  contact: null,
};

describe('webhook channel', () => {
  it('POSTs { inbox, id, body, messages } with Standard Webhooks headers that the standardwebhooks library verifies', async () => {
    const receiver = await startReceiver();
    const channel = createWebhookChannel({ url: `${receiver.url}/incoming`, secret });
    await channel.send(message, new AbortController().signal);

    const [request] = receiver.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/incoming' });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toBe('alice:7-8');
    const verified = new Webhook(secret).verify(request!.body, request!.headers);
    expect(verified).toEqual({ inbox: 'alice', id: 'alice:7-8', to: null, body: 'first\n\nsecond', messages: message.messages });
    // The signature binds the body: another body with the same headers fails.
    expect(() => new Webhook(secret).verify(request!.body.replace('first', 'FIRST'), request!.headers)).toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(request!.body, request!.headers)).toThrow();
  });

  it('a 5xx or 429 is worth another try (after its Retry-After), another 4xx is rejected for good; both name the status, never the URL', async () => {
    const receiver = await startReceiver([503, 429, 410], 'busy, try later', { 'retry-after': '7' });
    const channel = createWebhookChannel({ url: `${receiver.url}/incoming?token=s3cret`, secret });
    const send = () => channel.send(message, new AbortController().signal);
    const outcomes = [await send(), await send(), await send()];
    expect(outcomes).toEqual([
      { status: 'retry', reason: expect.stringMatching(/answered 503: busy, try later/), retryAfterMs: 7_000 },
      { status: 'retry', reason: expect.stringMatching(/answered 429/), retryAfterMs: 7_000 },
      { status: 'rejected', reason: expect.stringMatching(/answered 410/) },
    ]);
    expect(JSON.stringify(outcomes)).not.toMatch(/s3cret/);
  });

  it("carries the inbox's contacts.webhook as `to` (null without one), signed with the rest", async () => {
    const receiver = await startReceiver();
    const channel = createWebhookChannel({ url: receiver.url, secret });
    await channel.send({ ...message, contact: 'crm:4711' }, new AbortController().signal);
    expect(new Webhook(secret).verify(receiver.requests[0]!.body, receiver.requests[0]!.headers)).toMatchObject({ to: 'crm:4711' });
  });

  it('refuses a secret that is not whsec_ + base64', () => {
    expect(() => createWebhookChannel({ url: 'http://127.0.0.1:1/', secret: 'whsec_not base64!' })).toThrow(/whsec_/);
  });

  it('through the dispatcher: a failed delivery is retried with the same webhook-id, and the outbox empties once it succeeds', async () => {
    const receiver = await startReceiver([500, 500]);
    const { store } = await tempStore();
    const inbox = store.inbox('bob');
    await queueMessages(inbox, 'e1', ['your refund is done']);
    const events = new RuntimeEvents();
    const sent = nextEvent(events, 'outbox:sent');
    const dispatcher = new Dispatcher({
      store,
      channels: [createWebhookChannel({ url: receiver.url, secret })],
      events,
      pollIntervalMs: 2 ** 31 - 1,
      retry: { baseMs: 10, maxMs: 100 },
    });
    await dispatcher.start();
    defer(() => dispatcher.stop({ graceMs: 0 }));

    await sent;
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(['bob:1-1']));
    for (const request of receiver.requests) expect(new Webhook(secret).verify(request.body, request.headers)).toMatchObject({ body: 'your refund is done' });
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  });
});
