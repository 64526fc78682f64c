/**
 * /healthz on PostgreSQL (issue 49, finding 8), under a real `vigil serve`
 * on its own server (test/fixtures/restartable-postgres.ts): it says
 * `degraded` with a reason class and names nothing (no host, no URL, no
 * inbox) when the database refuses: stopped, `store_unreachable`; answering
 * reads but refusing writes (set read-only), `store_unwritable`. Each time
 * it is `ok` again once the database is, without a restart or a write.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
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

async function health(url: string): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const response = await fetch(`${url}/healthz`);
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as Record<string, unknown> };
}

async function asAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function expectNamesNothing(text: string): void {
  const { hostname, port, password } = new URL(postgres.url);
  for (const word of [`${hostname}:${port}`, password, 'postgres://', 'alice', 'bob']) expect(text).not.toContain(word);
}

it('a stopped database: degraded, store_unreachable, naming nothing; ok again once it is back', async () => {
  const root = harness.tempDir('vigil-pg-health-');
  const markers = join(root, 'markers');
  mkdirSync(markers);
  writeFileSync(join(markers, 'release'), '');
  const { url, post } = await startReplyingService(harness, root, postgres.url, markers);
  expect((await post('alice', 'a1')).status).toBe(202);
  expect((await health(url)).json).toEqual({ ok: true, status: 'ok' });

  await postgres.stop();
  expect((await post('bob', 'b1')).status).toBe(503);
  const said = await health(url);
  expect(said.status).toBe(503);
  expect(said.json).toMatchObject({ ok: false, status: 'degraded', reason: 'store_unreachable', error: { code: 'store_unavailable', message: 'the store does not answer' } });
  expectNamesNothing(said.text);

  await postgres.start();
  await waitFor('/healthz ok again', async () => (await health(url)).status === 200, 20_000);
  expect((await health(url)).json).toEqual({ ok: true, status: 'ok' });
}, 60_000);

it('a database that refuses writes: degraded, store_unwritable, naming nothing; ok again once it takes them, with no write needed', async () => {
  const root = harness.tempDir('vigil-pg-health-ro-');
  const markers = join(root, 'markers');
  mkdirSync(markers);
  writeFileSync(join(markers, 'release'), '');
  const { serve, url, post } = await startReplyingService(harness, root, postgres.url, markers);
  expect((await post('alice', 'ro-a1')).status).toBe(202);

  await asAdmin('ALTER SYSTEM SET default_transaction_read_only = on');
  await asAdmin('SELECT pg_reload_conf()');
  try {
    // Reads still answer; the write is refused (503, retry later), and the probe write beside it says it is the database's.
    // (The reload reaches the pool's connections soon, not at once: a new key each try.)
    let attempt = 0;
    await waitFor('a write refused', async () => (await post('bob', `ro-during-${attempt++}`)).status === 503, 10_000);
    const said = await health(url);
    expect(said.status).toBe(503);
    expect(said.json).toMatchObject({ ok: false, status: 'degraded', reason: 'store_unwritable', error: { code: 'store_unavailable', message: 'the store takes no writes' } });
    expectNamesNothing(said.text);
    const logged = await serve.log('the degraded line', (l) => l.msg === 'the store takes no writes: /healthz says degraded (store_unwritable)');
    expect(logged.error).toMatch(/read-only transaction/);
  } finally {
    await asAdmin('ALTER SYSTEM RESET default_transaction_read_only');
    await asAdmin('SELECT pg_reload_conf()');
  }
  await waitFor('/healthz ok again', async () => (await health(url)).status === 200, 10_000);
  expect((await post('bob', 'ro-after')).status).toBe(202);
}, 60_000);
