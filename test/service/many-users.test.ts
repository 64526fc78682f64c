/**
 * Issue 19's "done when", against a real `vigil serve`: two people's signed
 * GitHub deliveries to ONE URL (`POST /hooks/gh`, routed by `sender.login`)
 * land in two inboxes; each inbox's answer reaches that person's own DM,
 * posted as the bot (with its token) to a local fake of the Slack Web API,
 * and nothing crosses; someone with no Slack contact gets nothing sent to
 * anyone (undeliverable, counted); an unroutable delivery is 422 and stores
 * nothing; a forged one is 401.
 */
import { join } from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { startFakeSlack, type FakeSlack } from '../../examples/fakes/slack.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';

const GITHUB_SECRET = 'many-users-github-secret-0123456789abc';
const BOT_TOKEN = 'xoxb-many-users-test-bot-token';
const TOKEN = 'many-users-api-token-0123456789abcdef';

const harness = new ServiceHarness();
let slack: FakeSlack;
let url: string;
let store: Store;

beforeAll(async () => {
  slack = await startFakeSlack({ token: BOT_TOKEN, channels: ['D0OCTOCAT', 'D0HUBOT'] });
  const dir = harness.tempDir('vigil-many-users-');
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/webhook-reply-agent.ts'),
    sources: { gh: { type: 'github', secret: GITHUB_SECRET, inbox: { from: 'sender.login', prefix: 'gh-' } } },
    channels: { slack: { botToken: BOT_TOKEN, apiUrl: slack.apiUrl } },
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  url = await harness.serve(config).url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
  await slack?.close();
});

async function deliver(login: unknown, id: string, secret = GITHUB_SECRET): Promise<Response> {
  const body = JSON.stringify({ action: 'opened', issue: { number: 1, title: 'Crash on save' }, sender: { login } });
  return fetch(`${url}/hooks/gh`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': await sign(secret, body) },
  });
}

/** An operator gives a person's inbox its Slack DM, through the API. */
async function setContact(inboxId: string, dm: string): Promise<void> {
  const response = await fetch(`${url}/inboxes/${inboxId}/settings`, {
    method: 'PATCH',
    body: JSON.stringify({ contacts: { slack: dm } }),
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  expect([response.status, await response.json()]).toEqual([200, { contacts: { slack: dm } }]);
}

it("two people's deliveries to one URL land in two inboxes, and each answer reaches that person's DM only", async () => {
  await setContact('gh-octocat', 'D0OCTOCAT');
  await setContact('gh-hubot', 'D0HUBOT');
  expect((await deliver('octocat', 'd-1')).status).toBe(202);
  expect((await deliver('hubot', 'd-2')).status).toBe(202);
  await waitFor('both answers', () => slack.posted.size === 2 && [...slack.posted.values()].every((texts) => texts.length === 1));
  expect(Object.fromEntries(slack.posted)).toEqual({
    D0OCTOCAT: ['opened from octocat (d-1), for gh-octocat'],
    D0HUBOT: ['opened from hubot (d-2), for gh-hubot'],
  });
  expect(slack.requests.map((r) => [r.authorization, (r.body as { channel: string }).channel]).sort()).toEqual([
    [`Bearer ${BOT_TOKEN}`, 'D0HUBOT'],
    [`Bearer ${BOT_TOKEN}`, 'D0OCTOCAT'],
  ]);
  expect((await store.inbox('gh-octocat').events()).map((e) => e.sourceId)).toEqual(['d-1']);
  expect((await store.inbox('gh-hubot').events()).map((e) => e.sourceId)).toEqual(['d-2']);
});

it('someone with no Slack contact is sent nothing, anywhere: the answer is kept as undeliverable and counted', async () => {
  const before = slack.requests.length;
  expect((await deliver('mallory', 'd-3')).status).toBe(202);
  await waitFor('the answer to be undeliverable', async () => (await store.inbox('gh-mallory').stats()).outbox.undeliverable === 1);
  expect(slack.requests.length).toBe(before);
  const [failure] = (await store.view('gh-mallory').outbox()).failed;
  expect(failure).toMatchObject({ channel: 'slack', kind: 'undeliverable', body: 'opened from mallory (d-3), for gh-mallory' });
  expect(await (await fetch(`${url}/metrics`)).text()).toContain('vigil_outbox_failed_total{channel="slack",kind="undeliverable"} 1');
});

it('an unroutable delivery is 422 and stores nothing; a forged one is 401 and stores nothing', async () => {
  const inboxes = await store.inboxes();
  for (const login of [undefined, '', '../../etc/passwd', { name: 'x' }, 'a'.repeat(200)]) {
    const response = await deliver(login, `u-${String(login).slice(0, 10)}`);
    expect(response.status, JSON.stringify(login)).toBe(422);
    expect(await response.json()).toMatchObject({ error: { code: 'unroutable' } });
  }
  const forged = await deliver('octocat', 'd-forged', 'an-attacker-secret-0123456789abcdefgh');
  expect(forged.status).toBe(401);
  expect(await forged.json()).toMatchObject({ error: { code: 'bad_signature' } });
  expect(await store.inboxes()).toEqual(inboxes);
  expect((await store.inbox('gh-octocat').events()).map((e) => e.sourceId)).toEqual(['d-1']);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toContain('vigil_webhook_rejected_total{source="gh",reason="unroutable"} 5');
  expect(metrics).toContain('vigil_webhook_rejected_total{source="gh",reason="bad_signature"} 1');
  expect(Object.fromEntries(slack.posted)).toEqual({ D0OCTOCAT: ['opened from octocat (d-1), for gh-octocat'], D0HUBOT: ['opened from hubot (d-2), for gh-hubot'] });
});

it("issue 49, finding 1: a gap of 2^53-1 ms is 400 invalid_settings naming outbox.gapMs from the real service, and the inbox's settings stay as they were", async () => {
  await setContact('gh-bounded', 'D0HUBOT');
  for (const body of ['{"outbox":{"gapMs":9007199254740991}}', '{"wake":{"debounceMs":315576000001}}']) {
    const response = await fetch(`${url}/inboxes/gh-bounded/settings`, {
      method: 'PATCH',
      body,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/merge-patch+json' },
    });
    const field = body.includes('gapMs') ? 'outbox.gapMs' : 'wake.debounceMs';
    expect([response.status, await response.json()]).toEqual([400, { error: { code: 'invalid_settings', message: expect.stringContaining(`${field} must be a whole number from 0 to 315576000000`), field } }]);
  }
  expect(await store.inbox('gh-bounded').settings()).toEqual({ contacts: { slack: 'D0HUBOT' } });
});
