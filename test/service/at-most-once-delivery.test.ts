/**
 * `delivery: 'at-most-once'` under a real `vigil serve`: the webhook channel
 * points at a receiver that fails the first request it gets for one inbox.
 * That reply is recorded as sent before it goes out, so the failure loses
 * it: the receiver never sees it again, the log and /metrics say so, and
 * the other inbox's reply goes out once as usual.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';

const TOKEN = 'at-most-once-token-0123456789abcdef0';
const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

it("delivery: 'at-most-once': a reply whose send fails is lost, never sent twice, and the loss is logged and counted", async () => {
  const dir = harness.tempDir('vigil-amo-');
  const markers = join(dir, 'markers');
  mkdirSync(markers);
  writeFileSync(join(markers, 'release'), ''); // the agent answers at once
  // Fails the first request for 'flaky', answers everything else.
  const failFirst = new Set(['flaky']);
  const inboxOf = (body: string): string => (JSON.parse(body) as { inbox: string }).inbox;
  const receiver = await harness.receiver({ answer: (request) => (failFirst.delete(inboxOf(request.body)) ? 500 : 200) });
  const got = (): { inbox: string; status: number }[] => receiver.received.map((request) => ({ inbox: inboxOf(request.body), status: request.status }));
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/service-blocking-agent.ts'),
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    delivery: 'at-most-once',
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config, { VIGIL_TEST_MARKER_DIR: markers });
  const url = await serve.url();
  for (const [inbox, key] of [
    ['flaky', 'f1'],
    ['steady', 's1'],
  ] as const) {
    const response = await fetch(`${url}/inboxes/${inbox}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: key }),
      headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key },
    });
    expect(response.status).toBe(202);
  }

  const lost = await serve.log('the loss', (l) => l.msg === 'channel failed; at-most-once delivery: these messages are not sent again');
  expect(lost).toMatchObject({ inboxId: 'flaky', channel: 'webhook', count: 1, level: 50 });
  await waitFor('the steady reply', () => got().some((g) => g.inbox === 'steady'));
  // Polls every 200 ms, retry backoff from 1 s: an at-least-once dispatcher would have sent it again by now.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  expect(got()).toEqual(
    expect.arrayContaining([
      { inbox: 'flaky', status: 500 },
      { inbox: 'steady', status: 200 },
    ]),
  );
  expect(got()).toHaveLength(2);
  expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^vigil_outbox_lost_total\{channel="webhook"\} 1$/m);

  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  const store = await openStore(`sqlite:${join(dir, 'data')}`);
  try {
    for (const inbox of ['flaky', 'steady']) expect((await store.inbox(inbox).stats()).outbox, inbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  } finally {
    await store.close();
  }
  expect(got()).toHaveLength(2);
});
