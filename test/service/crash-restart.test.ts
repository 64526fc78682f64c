/**
 * SIGKILL `vigil serve` in the middle of a run; a restarted one takes over
 * the inbox once the dead process's lease lapses and finishes the work:
 * every event gets exactly one reply at the channel, none lost, none twice.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';

const TOKEN = 'crash-token-0123456789abcdef01234567';
const INBOX = 'bob';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

it('a run killed with SIGKILL is finished by the next process: one reply per event', async () => {
  const dir = harness.tempDir();
  const markers = join(dir, 'markers');
  const receiver = await harness.receiver();
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/service-blocking-agent.ts'),
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    // A short lease so the takeover comes soon after the kill; retries wait briefly.
    engine: { outboxGapMs: 0, leaseTtlMs: 1_500, retryBackoff: { baseMs: 50, maxMs: 200 } },
    workers: { pollIntervalMs: 200 },
  });
  mkdirSync(markers);
  const env = { VIGIL_TEST_MARKER_DIR: markers };

  const first = harness.serve(config, env);
  const url = await first.url();
  const send = async (baseUrl: string, key: string) => {
    const response = await fetch(`${baseUrl}/inboxes/${INBOX}/messages`, {
      method: 'POST',
      body: JSON.stringify({ text: key }),
      headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key },
    });
    expect(response.status).toBe(202);
  };
  await send(url, 'm1');
  // The run is in the agent (its marker is written), then more arrive behind it.
  const running = await waitFor('the first run to start', () => readdirSync(markers).find((name) => name.startsWith(`running-${first.pid}-`)));
  expect(running).toBe(`running-${first.pid}-m1`);
  await send(url, 'm2');
  await send(url, 'm3');

  first.signal('SIGKILL');
  expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
  expect(receiver.received).toHaveLength(0);

  writeFileSync(join(markers, 'release'), '');
  const second = harness.serve(config, env);
  const url2 = await second.url();
  await send(url2, 'm4');

  const replies = () => receiver.received.flatMap((r) => (JSON.parse(r.body) as { body: string }).body.split('\n\n'));
  await waitFor('a reply to all four messages', () => ['m1', 'm2', 'm3', 'm4'].every((id) => replies().includes(`reply to ${id}`)));

  const store = await openStore(`sqlite:${join(dir, 'data')}`);
  try {
    const events = await store.inbox(INBOX).events({ limit: 100 });
    expect(events.map((e) => [e.sourceId, e.status])).toEqual([
      ['m1', 'done'],
      ['m2', 'done'],
      ['m3', 'done'],
      ['m4', 'done'],
    ]);
    // m1 was claimed by the killed process and again by its successor.
    expect(events[0]!.attempts).toBe(2);
    const stats = await store.inbox(INBOX).stats();
    expect(stats.outbox.held).toBe(0);
  } finally {
    await store.close();
  }
  // Exactly one reply per event: nothing lost, nothing repeated.
  expect([...replies()].sort()).toEqual(['reply to m1', 'reply to m2', 'reply to m3', 'reply to m4']);
  expect(await (await fetch(`${url2}/metrics`)).text()).toMatch(/^vigil_lease_takeovers_total 1$/m);
});
