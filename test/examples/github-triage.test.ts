/**
 * examples/github-triage against a local fake of GitHub's API: a real
 * `vigil proxy` holding the token, a real `vigil serve` running the
 * example's agent with the example's configs (ports, paths and the
 * upstream's URL changed for the test). A signed `issues.opened` webhook
 * gets labels and one comment, through the proxy, with the token the agent
 * never had; a redelivery does nothing; a comment whose answer was lost is
 * not made twice when the run is retried.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterEach, expect, it } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../../examples/fakes/github.js';
import { REPO_ROOT, ServiceHarness, waitFor, type ServeProcess } from '../fixtures/service-process.js';

const EXAMPLE = join(REPO_ROOT, 'examples/github-triage');
const TOKEN = 'ghp_test_token_only_the_proxy_holds';
const WEBHOOK_SECRET = 'github-triage-test-secret-0123456789';

const harness = new ServiceHarness();
let github: FakeGitHub | undefined;
afterEach(async () => {
  await harness.cleanup();
  await github?.close();
});

const example = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(EXAMPLE, file), 'utf8')) as Record<string, unknown>;

async function start(): Promise<{ url: string; serve: ServeProcess; proxy: ServeProcess; fake: FakeGitHub }> {
  const fake = (github = await startFakeGitHub(TOKEN));
  const dir = harness.tempDir('vigil-github-triage-');
  const proxyConfig = example('proxy.json') as { upstreams: { github: Record<string, unknown> } };
  proxyConfig.upstreams.github.url = fake.url;
  const proxy = harness.start(['proxy', '--config', harness.writeConfig(dir, proxyConfig, 'proxy.json'), '--port', '0'], { env: { GITHUB_AUTH: `Bearer ${TOKEN}` } });
  const proxyUrl = (await proxy.log('proxy listening', (line) => line.msg.startsWith('vigil proxy listening on '))).url as string;

  const config = harness.writeConfig(dir, {
    ...example('vigil.json'),
    store: `sqlite:${join(dir, 'data')}`,
    port: 0,
    agent: join(EXAMPLE, 'agent.ts'),
    proxy: { url: proxyUrl },
    engine: { outboxGapMs: 0, retryBackoff: { baseMs: 100, maxMs: 100 } },
    workers: { pollIntervalMs: 200 },
  });
  // The service gets the webhook secret and never the GitHub token.
  const serve = harness.serve(config, { GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET });
  return { url: await serve.url(), serve, proxy, fake };
}

function issueOpened(number: number, title: string, body = ''): string {
  return JSON.stringify({ action: 'opened', issue: { number, title, body }, repository: { full_name: 'acme/app' } });
}

async function deliver(url: string, delivery: string, body: string): Promise<Response> {
  return fetch(`${url}/hooks/maintainers/github`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-github-delivery': delivery, 'x-hub-signature-256': await sign(WEBHOOK_SECRET, body) },
  });
}

it('labels and comments once through the proxy; the token never reaches the agent; a redelivery does nothing', async () => {
  const { url, serve, proxy, fake } = await start();
  const body = issueOpened(12, 'App crashes on save', 'Steps: open, edit, save. It throws an exception.');
  expect((await deliver(url, 'delivery-12', body)).status).toBe(202);
  await waitFor('the report', () => serve.printed.includes('Triaged acme/app#12 "App crashes on save": bug.'));

  expect(fake.labels('acme/app', 12)).toEqual(['bug']);
  expect(fake.comments('acme/app', 12)).toEqual(['Thanks for opening this! I labelled it **bug**.\n\n<!-- vigil-triage delivery=delivery-12 -->']);
  // Every call reached GitHub with the proxy's token; the service process never had it.
  expect(fake.requests.map((r) => [r.method, r.path, r.authorization])).toEqual([
    ['POST', '/repos/acme/app/issues/12/labels', `Bearer ${TOKEN}`],
    ['GET', '/repos/acme/app/issues/12/comments', `Bearer ${TOKEN}`],
    ['POST', '/repos/acme/app/issues/12/comments', `Bearer ${TOKEN}`],
  ]);
  expect(serve.stdout + serve.stderr + proxy.stdout + proxy.stderr).not.toContain(TOKEN);

  const again = await deliver(url, 'delivery-12', body);
  expect([again.status, await again.json()]).toEqual([200, { stored: false, duplicate: true }]);

  // A question and a closed issue: one more comment, nothing for the close.
  expect((await deliver(url, 'delivery-14', issueOpened(14, 'How do I change the theme?'))).status).toBe(202);
  expect((await deliver(url, 'delivery-15', JSON.stringify({ action: 'closed', issue: { number: 12, title: 'x' }, repository: { full_name: 'acme/app' } }))).status).toBe(202);
  await waitFor('the second report', () => serve.printed.includes('Triaged acme/app#14 "How do I change the theme?": question.'));
  await serve.log('the close run', (line) => line.msg === 'run finished' && line.outcome === 'nothing');
  expect(fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comments'))).toHaveLength(2);
});

it('a comment GitHub made but whose answer was lost is not made again when the run is retried', async () => {
  const { url, serve, fake } = await start();
  fake.loseNextCommentAnswer();
  expect((await deliver(url, 'delivery-13', issueOpened(13, 'Please add support for dark mode'))).status).toBe(202);
  await serve.log('the failed run', (line) => line.msg === 'run did not complete' && String(line.error).includes('502'));
  await waitFor('the report after the retry', () => serve.printed.includes('Triaged acme/app#13 "Please add support for dark mode": enhancement.'));
  expect(fake.comments('acme/app', 13)).toHaveLength(1);
  expect(serve.printed.split('Triaged acme/app#13').length - 1).toBe(1);
});
