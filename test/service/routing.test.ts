/**
 * Inbound routing against a real `vigil serve`: two users' signed GitHub
 * deliveries to one URL land in two inboxes; one that names no inbox is 422
 * and stores nothing, and /metrics counts it; a forged one is 401; the
 * agent module's route() routes a source without `inbox.from`; Slack's
 * url_verification is answered at the routed URL.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { REPO_ROOT, ServiceHarness } from '../fixtures/service-process.js';

const GITHUB_SECRET = 'routing-github-secret-0123456789abcdef';
const SLACK_SECRET = 'routing-slack-secret-0123456789abcdef0';

const harness = new ServiceHarness();
let url: string;
let store: Store;

beforeAll(async () => {
  const dir = harness.tempDir('vigil-routing-');
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    agent: join(REPO_ROOT, 'test/fixtures/routing-agent.ts'),
    sources: {
      github: { type: 'github', secret: GITHUB_SECRET, inbox: { from: 'sender.login', prefix: 'gh-' } },
      orgs: { type: 'github', secret: GITHUB_SECRET },
      slack: { type: 'slack', secret: SLACK_SECRET, inbox: { from: 'event.user', prefix: 'slack-' } },
    },
  });
  url = await harness.serve(config).url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
});

async function github(path: string, payload: unknown, id: string, secret = GITHUB_SECRET): Promise<Response> {
  const body = JSON.stringify(payload);
  return fetch(`${url}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': await githubSign(secret, body) },
  });
}

it("two users' deliveries to one URL land in two inboxes; unroutable is 422 and counted; forged is 401; nothing crosses", async () => {
  expect((await github('/hooks/github', { action: 'opened', sender: { login: 'octocat' } }, 'd-1')).status).toBe(202);
  expect((await github('/hooks/github', { action: 'opened', sender: { login: 'hubot' } }, 'd-2')).status).toBe(202);
  const unroutable = await github('/hooks/github', { action: 'opened', sender: { login: '../../etc' } }, 'd-3');
  expect(unroutable.status).toBe(422);
  expect(await unroutable.json()).toMatchObject({ error: { code: 'unroutable' } });
  const forged = await github('/hooks/github', { action: 'opened', sender: { login: 'octocat' } }, 'd-4', 'an-attacker-secret-0123456789abcdefgh');
  expect(forged.status).toBe(401);

  expect(await store.inboxes()).toEqual(['gh-hubot', 'gh-octocat']);
  expect((await store.inbox('gh-octocat').events()).map((e) => e.sourceId)).toEqual(['d-1']);
  expect((await store.inbox('gh-hubot').events()).map((e) => e.sourceId)).toEqual(['d-2']);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toContain('vigil_webhook_rejected_total{source="github",reason="unroutable"} 1');
  expect(metrics).toContain('vigil_webhook_rejected_total{source="github",reason="bad_signature"} 1');
});

it("the agent module's route() routes a source without inbox.from; no answer is 422", async () => {
  expect((await github('/hooks/orgs', { org: 'acme' }, 'o-1')).status).toBe(202);
  expect((await github('/hooks/orgs', { nothing: 'here' }, 'o-2')).status).toBe(422);
  expect((await store.inbox('org-acme').events()).map((e) => e.sourceId)).toEqual(['o-1']);
});

it("answers Slack's url_verification challenge at the routed URL", async () => {
  const body = JSON.stringify({ type: 'url_verification', token: 't', challenge: 'routed-challenge' });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = 'v0=' + createHmac('sha256', SLACK_SECRET).update(`v0:${timestamp}:${body}`).digest('hex');
  const response = await fetch(`${url}/hooks/slack`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature } });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ challenge: 'routed-challenge' });
});
