/**
 * SIGTERM drains: `vigil serve` stops claiming, lets the run in progress
 * finish, sends its reply, releases the lease and exits 0; an event that arrives during the
 * drain is stored (acked) but left for the next start. A second signal
 * exits at once, without waiting for the run.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { ECHO_WINDOW_MS } from '../../src/service/run-until-signal.js';
import { REPO_ROOT, ServiceHarness, waitFor, type ServeProcess } from '../fixtures/service-process.js';

const TOKEN = 'shutdown-token-0123456789abcdef01234';
const INBOX = 'carol';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

async function startBlocked(): Promise<{ serve: ServeProcess; url: string; dir: string; markers: string }> {
  const dir = harness.tempDir();
  const markers = join(dir, 'markers');
  mkdirSync(markers);
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/service-blocking-agent.ts'),
    channels: { console: {} },
    workers: { pollIntervalMs: 200, shutdownGraceMs: 60_000 },
  });
  const serve = harness.serve(config, { VIGIL_TEST_MARKER_DIR: markers });
  const url = await serve.url();
  await send(url, 'm1');
  await waitFor('the run to start', () => readdirSync(markers).some((name) => name.startsWith('running-')));
  return { serve, url, dir, markers };
}

async function send(url: string, key: string): Promise<void> {
  const response = await fetch(`${url}/inboxes/${INBOX}/messages`, {
    method: 'POST',
    body: JSON.stringify({ text: key }),
    headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key },
  });
  expect(response.status).toBe(202);
}

it('SIGTERM: the run in progress finishes and its reply is sent, nothing new is claimed, the lease is released, exit 0', async () => {
  const { serve, url, dir, markers } = await startBlocked();
  serve.signal('SIGTERM');
  await serve.log('draining', (line) => line.msg === 'signal received: draining');
  // Still acked while draining: durable now, run by the next start.
  await send(url, 'm2');
  writeFileSync(join(markers, 'release'), '');

  expect(await serve.exited).toEqual({ code: 0, signal: null });
  expect(serve.logs.some((line) => line.msg === 'run finished' && line.outcome === 'messages')).toBe(true);
  expect(serve.logs.at(-1)?.msg).toBe('stopped');

  const store = await openStore(`sqlite:${join(dir, 'data')}`);
  try {
    const inbox = store.inbox(INBOX);
    const events = await inbox.events({ limit: 10 });
    expect(events.map((e) => [e.sourceId, e.status, e.attempts])).toEqual([
      ['m1', 'done', 1],
      ['m2', 'pending', 0],
    ]);
    const stats = await inbox.stats();
    // Released, not left to lapse: the next process need not wait out the TTL.
    expect(stats.lease === null || stats.lease.until < Date.now()).toBe(true);
    // The run's reply went out before the process exited, not at the next start.
    expect(stats.outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  } finally {
    await store.close();
  }
});

it('a second signal exits at once with 128 + the signal number, leaving the run for the next start', async () => {
  const { serve, dir } = await startBlocked();
  serve.signal('SIGINT');
  await serve.log('draining', (line) => line.msg === 'signal received: draining');
  // A person's second press, not the echo of the first (see the next test).
  await new Promise((resolve) => setTimeout(resolve, ECHO_WINDOW_MS + 100));
  serve.signal('SIGINT');
  expect(await serve.exited).toEqual({ code: 130, signal: null });

  const store = await openStore(`sqlite:${join(dir, 'data')}`);
  try {
    // Claimed and never finished: the lease's TTL hands it to the next process.
    expect((await store.inbox(INBOX).events({ limit: 10 })).map((e) => [e.sourceId, e.status])).toEqual([['m1', 'running']]);
  } finally {
    await store.close();
  }
});

it('one Ctrl-C that arrives twice at once (the terminal\'s and npm\'s forward of it) is one signal: the drain completes, exit 0', async () => {
  const { serve, markers } = await startBlocked();
  serve.signal('SIGINT');
  // npm's forward comes a few ms after the terminal's (sent back to back, the kernel would merge them into one).
  await new Promise((resolve) => setTimeout(resolve, 30));
  serve.signal('SIGINT');
  await serve.log('draining', (line) => line.msg === 'signal received: draining');
  writeFileSync(join(markers, 'release'), '');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  expect(serve.logs.filter((line) => line.msg === 'signal received: draining')).toHaveLength(1);
  expect(serve.logs.some((line) => line.msg === 'second signal: exiting now')).toBe(false);
  expect(serve.logs.at(-1)?.msg).toBe('stopped');
});
