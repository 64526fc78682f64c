/**
 * Issue 49, finding 2 (one user fills the disk for all), against a real
 * `vigil serve` with small quotas: a delivery past its inbox's rate or
 * pending limit is 429 with Retry-After and `{"error":{"code":…}}`, stores
 * nothing and is counted in /metrics, while another inbox still gets 202;
 * the operator sets an inbox's own limits through the API and the CLI,
 * the agent cannot (operator_only); usage against the limits is read at
 * GET /inboxes/<id>/stats and with `vigil status <id>`.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';

const GITHUB_SECRET = 'quotas-github-secret-0123456789abcdef';
const TOKEN = 'quotas-api-token-0123456789abcdef';
const RATE = 2;

const harness = new ServiceHarness();
let url: string;
let store: Store;
let dir: string;
let configFile: string;

beforeAll(async () => {
  dir = harness.tempDir('vigil-quotas-');
  configFile = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/quota-raising-agent.ts'),
    sources: { gh: { type: 'github', secret: GITHUB_SECRET, inbox: { from: 'sender.login' } } },
    channels: { console: {} },
    limits: { eventsPerMinutePerInbox: RATE },
    workers: { pollIntervalMs: 200 },
  });
  url = await harness.serve(configFile).url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
});

async function deliver(login: string, id: string): Promise<Response> {
  const body = JSON.stringify({ action: 'opened', sender: { login } });
  return fetch(`${url}/hooks/gh`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': await sign(GITHUB_SECRET, body) },
  });
}

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/inboxes/${path}`, { ...init, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...init.headers } });
}

/** The rate is a fixed minute of the service's clock: start a test's deliveries well inside one. */
async function awayFromMinuteEnd(): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 45_000) await sleep(60_000 - into + 100);
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

it('past its rate an inbox answers 429 rate_limited with Retry-After and stores nothing; another inbox still gets 202', async () => {
  await awayFromMinuteEnd();
  expect((await deliver('alice', 'a-1')).status).toBe(202);
  expect((await deliver('alice', 'a-2')).status).toBe(202);
  const refused = await deliver('alice', 'a-3');
  expect(refused.status).toBe(429);
  expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
  const retryAfter = Number(refused.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(await store.inbox('alice').getEvent('gh', 'a-3')).toBeNull();
  // A provider's redelivery of one already stored is a duplicate, not a refusal.
  expect((await deliver('alice', 'a-1')).status).toBe(200);
  expect((await deliver('bob', 'b-1')).status).toBe(202);
  expect((await store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['a-1', 'a-2']);
  expect(await metric('vigil_ingest_refused_total', 'source="gh",reason="rate_limited"')).toBe(1);
});

it('an operator fills an inbox with its own limits through the API: webhooks and messages get 429 inbox_full; stats and `vigil status` show why', async () => {
  const set = await api('carol/settings', { method: 'PATCH', body: JSON.stringify({ limits: { pendingEventsPerInbox: 0 } }) });
  expect([set.status, await set.json()]).toEqual([200, { limits: { pendingEventsPerInbox: 0 } }]);
  const refused = await deliver('carol', 'c-1');
  expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '60']);
  expect(await refused.json()).toMatchObject({ error: { code: 'inbox_full' } });
  const message = await api('carol/messages', { method: 'POST', body: JSON.stringify({ text: 'hi' }), headers: { 'idempotency-key': 'm-1' } });
  expect([message.status, message.headers.get('retry-after')]).toEqual([429, '60']);
  expect(await message.json()).toMatchObject({ error: { code: 'inbox_full' } });
  expect(await store.inbox('carol').events()).toEqual([]);
  expect(await metric('vigil_ingest_refused_total', 'source="chat",reason="inbox_full"')).toBe(1);

  const stats = await api('carol/stats');
  expect(stats.status).toBe(200);
  expect(await stats.json()).toMatchObject({
    usage: { pendingEvents: 0, pendingBytes: 0, eventsThisMinute: 0 },
    limits: { pendingEventsPerInbox: 0, pendingBytesPerInbox: 64 * 1_048_576, eventsPerMinutePerInbox: RATE },
  });
  const status = await harness.cli(['status', 'alice', '--config', configFile]);
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toMatch(/events this minute\s+\d+\s+2\b/);
  expect(status.stdout).toMatch(/pending events\s+\d+\s+10000\b/);

  // The CLI is the operator's too: it lifts carol's own limit, and carol takes deliveries again.
  const cli = await harness.cli(['settings', 'carol', '--set', 'limits.pendingEventsPerInbox=5', '--config', configFile]);
  expect(cli.code, cli.stderr).toBe(0);
  expect(await store.inbox('carol').settings()).toEqual({ limits: { pendingEventsPerInbox: 5 } });
  await awayFromMinuteEnd();
  expect((await deliver('carol', 'c-1')).status).toBe(202);
});

it("the agent cannot raise its own quota: ctx.updateSettings with limits is refused operator_only, nothing changed", async () => {
  expect((await deliver('dave', 'd-1')).status).toBe(202);
  const outcome = await waitFor('the agent to try', async () => (await store.inbox('dave').getMemory())['raise-limits']);
  expect(outcome).toBe('operator_only');
  expect(await store.inbox('dave').settings()).toEqual({});
  const read = await api('dave/settings');
  expect(await read.json()).toEqual({});
});
