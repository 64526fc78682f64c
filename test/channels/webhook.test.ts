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
    { id: 7, body: 'first', urgent: false },
    { id: 8, body: 'second', urgent: true },
  ],
  id: 'alice:7-8',
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
    expect(verified).toEqual({ inbox: 'alice', id: 'alice:7-8', body: 'first\n\nsecond', messages: message.messages });
    // The signature binds the body: another body with the same headers fails.
    expect(() => new Webhook(secret).verify(request!.body.replace('first', 'FIRST'), request!.headers)).toThrow();
    expect(() => new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(request!.body, request!.headers)).toThrow();
  });

  it('treats a non-2xx answer as a failure, naming the status and not the URL', async () => {
    const receiver = await startReceiver([503], 'busy, try later');
    const channel = createWebhookChannel({ url: `${receiver.url}/incoming?token=s3cret`, secret });
    const failure = channel.send(message, new AbortController().signal);
    await expect(failure).rejects.toThrow(/answered 503: busy, try later/);
    await expect(failure).rejects.not.toThrow(/s3cret/);
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
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 1 });
  });
});
