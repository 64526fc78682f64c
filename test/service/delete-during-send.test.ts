/**
 * Delete is final, under a real `vigil serve`: `DELETE /inboxes/<id>` lands
 * while that inbox's reply is being sent (the webhook channel's receiver,
 * on 127.0.0.1, holds the request open). The delete answers 204; when the
 * receiver then takes the reply, the dispatcher's record of the send is
 * refused, logged once, and recreates nothing: no file comes back and the
 * id is never listed again. Another inbox goes on as usual.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';

const TOKEN = 'delete-during-send-token-0123456789ab';
const harness = new ServiceHarness();
const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  await harness.cleanup();
});

/** A receiver that holds each request for `held` until the test lets it go, and answers the rest at once. */
async function holdingReceiver(held: string): Promise<{ url: string; bodies: string[]; waiting: () => boolean; release: () => void }> {
  const bodies: string[] = [];
  const waiting: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      if ((JSON.parse(body) as { inbox: string }).inbox === held) waiting.push(res);
      else res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/inbound`,
    bodies,
    waiting: () => waiting.length > 0,
    release: () => {
      for (const res of waiting.splice(0)) res.writeHead(200).end('{}');
    },
  };
}

it('DELETE /inboxes/<id> while its reply is being sent: 204, then the record of the send is refused and logged once, and the inbox never comes back', async () => {
  const dir = harness.tempDir('vigil-delete-send-');
  const markers = join(dir, 'markers');
  mkdirSync(markers);
  writeFileSync(join(markers, 'release'), ''); // the agent answers at once
  const receiver = await holdingReceiver('gone');
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/service-blocking-agent.ts'),
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET, timeoutMs: 20_000 } },
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config, { VIGIL_TEST_MARKER_DIR: markers });
  const url = await serve.url();
  const auth = { authorization: `Bearer ${TOKEN}` };
  const say = async (inbox: string, key: string) =>
    (await fetch(`${url}/inboxes/${inbox}/messages`, { method: 'POST', body: JSON.stringify({ text: key }), headers: { ...auth, 'idempotency-key': key } })).status;

  expect(await say('gone', 'g1')).toBe(202);
  await waitFor('the reply to be on its way to the receiver', receiver.waiting);
  const file = join(dir, 'data', 'gone.db');
  expect(existsSync(file)).toBe(true);
  // The worker let go of the inbox when its run finished; only the send is in flight.
  const deleted = await waitFor('the delete', async () => {
    const response = await fetch(`${url}/inboxes/gone`, { method: 'DELETE', headers: auth });
    return response.status === 409 ? undefined : response.status;
  });
  expect(deleted).toBe(204);
  expect(existsSync(file)).toBe(false);

  receiver.release();
  const refused = await serve.log('the refused record', (l) => l.msg.startsWith('the inbox was deleted meanwhile'));
  expect(refused).toMatchObject({ inboxId: 'gone', write: 'send record', reason: 'deleted', level: 40 });
  // Another inbox's reply goes and is recorded as usual; by then every pass has seen 'gone' too.
  expect(await say('kept', 'k1')).toBe(202);
  await waitFor('the other reply', () => receiver.bodies.some((b) => (JSON.parse(b) as { inbox: string }).inbox === 'kept'));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(existsSync(file)).toBe(false);
  expect(serve.logs.filter((l) => l.msg.startsWith('the inbox was deleted meanwhile'))).toHaveLength(1);
  expect(receiver.bodies.filter((b) => (JSON.parse(b) as { inbox: string }).inbox === 'gone')).toHaveLength(1);

  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  expect(existsSync(file)).toBe(false);
  const store = await openStore(`sqlite:${join(dir, 'data')}`);
  try {
    expect(await store.inboxes()).toEqual(['kept']);
    expect((await store.listInboxes()).inboxes.map((i) => i.id)).toEqual(['kept']);
  } finally {
    await store.close();
  }
});
