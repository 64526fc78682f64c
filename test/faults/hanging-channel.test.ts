/**
 * A channel whose receiver never answers: a real `vigil serve` with the
 * webhook channel pointed at a receiver that holds one inbox's requests
 * open forever. The send times out with a clear error in the log, the
 * other inboxes' replies still go out meanwhile, the held message is
 * retried, and once the receiver answers it is delivered exactly once.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Channel, OutgoingMessage } from '../../src/channels/channel.js';
import { openStore } from '../../src/index.js';
import { Dispatcher } from '../../src/runtime/dispatcher.js';
import { RuntimeEvents, type RuntimeEventMap } from '../../src/events.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { defer, gate, queueMessages, tempStore } from '../runtime/helpers.js';

const TOKEN = 'hang-token-0123456789abcdef0123456789';
/** Long enough that the other inboxes' replies surely go out before it, even on a loaded machine. */
const CHANNEL_TIMEOUT_MS = 4_000;

const harness = new ServiceHarness();
const hung: ServerResponse[] = [];
afterEach(async () => {
  for (const res of hung.splice(0)) res.destroy();
  await harness.cleanup();
});

interface Delivery {
  inbox: string;
  webhookId: string;
  body: string;
  answered: boolean;
}

/** A webhook receiver that never answers requests for the inboxes in `hang` (until they are taken out). */
async function hangingReceiver(hang: Set<string>): Promise<{ url: string; deliveries: Delivery[]; close: () => Promise<void> }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const inbox = (JSON.parse(body) as { inbox: string }).inbox;
      const delivery = { inbox, webhookId: String(req.headers['webhook-id']), body, answered: false };
      deliveries.push(delivery);
      if (hang.has(inbox)) {
        hung.push(res);
        return;
      }
      delivery.answered = true;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/inbound`,
    deliveries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

it('a receiver that never answers: the send times out with a clear error, other inboxes still get their replies, and the message is delivered once it answers', async () => {
  const dir = harness.tempDir('vigil-hang-');
  const markers = join(dir, 'markers');
  mkdirSync(markers);
  writeFileSync(join(markers, 'release'), ''); // the agent answers at once
  const hang = new Set(['stuck']);
  const receiver = await hangingReceiver(hang);
  try {
    const config = harness.writeConfig(dir, {
      store: 'sqlite:./data',
      port: 0,
      token: TOKEN,
      agent: join(REPO_ROOT, 'test/fixtures/service-blocking-agent.ts'),
      channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET, timeoutMs: CHANNEL_TIMEOUT_MS } },
      // The dispatcher's own deadline (leaseTtlMs / 4 = 10 s) is above the channel's: the channel's timeout is the one that fires.
      engine: { outboxGapMs: 0, leaseTtlMs: 40_000 },
      workers: { pollIntervalMs: 200 },
    });
    const serve = harness.serve(config, { VIGIL_TEST_MARKER_DIR: markers });
    const url = await serve.url();
    const send = async (inbox: string, key: string) => {
      const response = await fetch(`${url}/inboxes/${inbox}/messages`, {
        method: 'POST',
        body: JSON.stringify({ text: key }),
        headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key },
      });
      expect(response.status).toBe(202);
    };
    const answered = (inbox: string) => receiver.deliveries.filter((d) => d.inbox === inbox && d.answered);

    await send('stuck', 's1');
    await waitFor('the stuck inbox reply to reach the receiver', () => receiver.deliveries.some((d) => d.inbox === 'stuck'));
    const firstHang = Date.now();
    await send('alice', 'a1');
    await send('bob', 'b1');
    // The other inboxes are not queued behind the hung send: their replies go out before it times out.
    await waitFor('replies to alice and bob', () => answered('alice').length === 1 && answered('bob').length === 1);
    expect(Date.now() - firstHang).toBeLessThan(CHANNEL_TIMEOUT_MS);

    const failure = await serve.log('the channel failure for stuck', (l) => l.msg === 'channel failed; the messages stay held' && l.inboxId === 'stuck');
    expect(failure).toMatchObject({ channel: 'webhook', level: 40 });
    expect(String(failure.error)).toMatch(/webhook 127\.0\.0\.1:\d+ did not answer within 4000 ms/);

    // It is tried again (a second request reaches the receiver), then the receiver recovers.
    await waitFor('a retry of the stuck reply', () => receiver.deliveries.filter((d) => d.inbox === 'stuck').length >= 2, 15_000);
    hang.delete('stuck');
    // The receiver comes back: the request it was holding is dropped (as a restarted receiver would), the next one is answered.
    for (const res of hung.splice(0)) res.destroy();
    await waitFor('the stuck reply to be delivered', () => answered('stuck').length === 1, 20_000);

    const attempts = receiver.deliveries.filter((d) => d.inbox === 'stuck');
    // Every attempt is the same batch under the same id, so a receiver dedupes what at-least-once repeats.
    expect(new Set(attempts.map((d) => d.webhookId)).size).toBe(1);
    expect(new Set(attempts.map((d) => (JSON.parse(d.body) as { body: string }).body))).toEqual(new Set(['reply to s1']));
    expect(answered('stuck')).toHaveLength(1);
    expect(answered('alice')).toHaveLength(1);
    expect(answered('bob')).toHaveLength(1);
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^vigil_channel_failures_total\{channel="webhook"\} [2-9]\d*$/m);

    serve.signal('SIGTERM');
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    const store = await openStore(`sqlite:${join(dir, 'data')}`);
    try {
      for (const inbox of ['stuck', 'alice', 'bob']) {
        const stats = await store.inbox(inbox).stats();
        expect(stats.outbox, inbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
        expect(stats.events.done, inbox).toBe(1);
      }
    } finally {
      await store.close();
    }
    // Nothing more arrived after the delivery: it went out once.
    expect(answered('stuck')).toHaveLength(1);
  } finally {
    await receiver.close();
  }
});

it('a channel that hangs and ignores its abort signal: the dispatcher gives up at sendTimeoutMs naming the channel, other inboxes are delivered meanwhile, and the held batch goes out once it answers', async () => {
  const { store } = await tempStore({ leaseTtlMs: 4_000, outboxGapMs: 0 });
  await queueMessages(store.inbox('stuck'), 'e1', ['for stuck']);
  const stuckAnswers = gate();
  const delivered: OutgoingMessage[] = [];
  let stuckCalls = 0;
  const stubborn: Channel = {
    name: 'stubborn',
    // Never looks at its signal: only the dispatcher's own deadline can end the wait.
    async send(message) {
      if (message.inboxId === 'stuck') {
        stuckCalls += 1;
        if (stuckCalls === 1) await new Promise(() => undefined);
        else await stuckAnswers.promise;
      }
      delivered.push(message);
    },
  };
  const events = new RuntimeEvents();
  const failures: RuntimeEventMap['channel:failed'][] = [];
  events.on('channel:failed', (failure) => void failures.push(failure));
  const dispatcher = new Dispatcher({ store, channels: [stubborn], events, pollIntervalMs: 100, leaseTtlMs: 4_000, sendTimeoutMs: 300, retry: { baseMs: 50, maxMs: 200 } });
  await dispatcher.start();
  defer(() => dispatcher.stop({ graceMs: 0 }));

  await waitFor('the first send to stuck', () => stuckCalls === 1);
  await queueMessages(store.inbox('alice'), 'e1', ['for alice']);
  dispatcher.wake();
  await waitFor('alice delivered while stuck hangs', () => delivered.some((m) => m.inboxId === 'alice'));
  expect(failures).toEqual([]);

  await waitFor('the send timeout for stuck', () => failures.length > 0);
  expect(failures[0]).toMatchObject({ inboxId: 'stuck', channel: 'stubborn' });
  // Cut off at its deadline, the send may have landed: uncertain, and (at least once) sent again under its batch id.
  expect(failures[0]!.error).toBe('uncertain: send timeout: the stubborn channel did not finish within 300 ms');

  await waitFor('a retry for stuck', () => stuckCalls >= 2);
  stuckAnswers.open();
  await waitFor('stuck delivered', async () => (await store.inbox('stuck').stats()).outbox.held === 0);
  expect(delivered.map((m) => [m.inboxId, m.body])).toEqual([
    ['alice', 'for alice'],
    ['stuck', 'for stuck'],
  ]);
  expect((await store.inbox('stuck').stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
});
