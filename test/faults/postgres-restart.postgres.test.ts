/**
 * The PostgreSQL server restarted in the middle of a run, under a real
 * `vigil serve` (its own server, see test/fixtures/restartable-postgres.ts).
 * While it is down: deliveries get 503 with a code and Retry-After, the
 * health check says 503, the log says PostgreSQL is unavailable, and the
 * process stays up. A run that finishes while it is down cannot record its
 * outcome, so it runs again after. Once the server is back, the same
 * process recovers without a restart: the client's retries are stored,
 * every acknowledged message gets exactly one reply, none is done twice.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { RestartablePostgres } from '../fixtures/restartable-postgres.js';
import { ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { startReplyingService } from './replying-service.js';

let postgres: RestartablePostgres;
beforeAll(async () => {
  postgres = await RestartablePostgres.create();
});
afterAll(async () => {
  await postgres?.destroy();
});

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

it('vigil serve across a PostgreSQL restart: clear 503s while it is down, the same process recovers after, one reply per acknowledged message', async () => {
  const root = harness.tempDir('vigil-pg-restart-');
  const markers = join(root, 'markers');
  mkdirSync(markers);
  const { serve, url, post, replies } = await startReplyingService(harness, root, postgres.url, markers);
  const acked: string[] = [];

  // A run is in the agent when the server goes down; another message waits behind it.
  expect((await post('alice', 'a1')).status).toBe(202);
  acked.push('a1');
  await waitFor('the run for a1', () => readdirSync(markers).some((name) => name.endsWith('-a1')));
  expect((await post('alice', 'a2')).status).toBe(202);
  acked.push('a2');

  await postgres.stop();
  const during = await post('bob', 'b1');
  expect(during.status).toBe(503);
  expect(during.headers.get('retry-after')).toBe('1');
  const body = (await during.json()) as { error: { code: string } };
  expect(body.error.code).toBe('store_unavailable');
  expect((await fetch(`${url}/healthz`)).status).toBe(503);
  const logged = await serve.log('the store warning', (l) => l.msg === `store unavailable: ${body.error.code}`);
  expect(JSON.stringify(logged.err)).toMatch(/PostgreSQL is unavailable/);

  // The run ends while the server is down: its finish cannot be recorded.
  writeFileSync(join(markers, 'release'), '');
  const failedTurn = await serve.log('the turn that could not finish', (l) => l.msg === 'worker: an inbox turn failed; retrying it with a growing wait (further failures are debug lines)' && l.inboxId === 'alice', 15_000);
  expect(JSON.stringify(failedTurn.err)).toMatch(/PostgreSQL is unavailable/);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(serve.alive).toBe(true);
  expect(replies()).toEqual([]);

  await postgres.start();
  // The client retries what was refused (bounded); the first tries may still meet dead pooled connections.
  const retried = await waitFor(
    'the refused delivery to be stored after the restart',
    async () => {
      const response = await post('bob', 'b1');
      if (response.status === 503) return undefined;
      return response.status;
    },
    20_000,
  );
  expect(retried).toBe(202);
  acked.push('b1');
  expect((await post('alice', 'a3')).status).toBe(202);
  acked.push('a3');
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  await waitFor('a reply to every acknowledged message', () => acked.every((key) => replies().includes(`reply to ${key}`)), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 500)); // room for a stray second reply to show up
  expect([...replies()].sort()).toEqual(acked.map((key) => `reply to ${key}`).sort());

  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  const store = await openStore(postgres.url);
  try {
    const events = [...(await store.inbox('alice').events()), ...(await store.inbox('bob').events())];
    expect(events.map((e) => e.sourceId).sort()).toEqual([...acked].sort());
    expect(events.filter((e) => e.status !== 'done')).toEqual([]);
    // a1's first run could not record its outcome: it ran again; its one reply came from that run.
    expect(events.find((e) => e.sourceId === 'a1')!.attempts).toBe(2);
    expect((await store.inbox('alice').stats()).outbox).toEqual({ held: 0, sent: expect.any(Number), undeliverable: 0, rejected: 0 });
  } finally {
    await store.close();
  }
});
