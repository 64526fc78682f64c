/**
 * What a real `vigil serve` on PostgreSQL writes, from its startup to its
 * exit: the startup line says where everything is (the dashboard too) and
 * shows the store URL without its password; no secret of the config (the
 * database password, the API token, a webhook secret, the link secret)
 * appears anywhere in its output, through a delivery, a run and a SIGTERM.
 */
import { sign as githubSign } from '@octokit/webhooks-methods';
import { afterAll, expect, it } from 'vitest';
import { ServiceHarness } from '../fixtures/service-process.js';
import { useTestDatabase } from '../postgres/test-database.js';

const db = useTestDatabase('startup_log');
const harness = new ServiceHarness();
afterAll(() => harness.cleanup());

const TOKEN = 'startup-log-token-0f6b1c2d9e-0123456';
const GITHUB_SECRET = 'startup-log-github-secret-77aa-0123456789';
const LINK_SECRET = 'startup-log-link-secret-5c3e-0123456789ab';

it('the startup line names the dashboard and the store without its password; no secret is ever printed', async (ctx) => {
  const password = decodeURIComponent(new URL(db.url).password);
  if (password === '') ctx.skip('the PostgreSQL URL (DATABASE_URL) has no password to keep out of the log');
  const dir = harness.tempDir('vigil-startup-log-');
  const config = harness.writeConfig(dir, {
    store: `${db.url}?schema=startup_log`,
    port: 0,
    token: 'env:TEST_VIGIL_TOKEN',
    linkSecret: LINK_SECRET,
    sources: { github: { type: 'github', secret: GITHUB_SECRET } },
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config, { TEST_VIGIL_TOKEN: TOKEN });
  const started = await serve.log('the startup line', (line) => line.msg.startsWith('vigil listening on '));
  const url = started.url as string;
  const shown = new URL(db.url);
  shown.password = '***';
  expect(started.store).toBe(`${shown.toString()}?schema=startup_log`);
  expect(started.dashboard).toBe(`${url}/`);

  // A delivery and the run it starts: more log lines that could carry a secret.
  const body = JSON.stringify({ action: 'opened', issue: { title: 'hello' } });
  const response = await fetch(`${url}/hooks/alice/github`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-github-delivery': 'd-1', 'x-hub-signature-256': await githubSign(GITHUB_SECRET, body) },
  });
  expect(response.status).toBe(202);
  await serve.log('the run', (line) => line.msg === 'run finished' && line.inboxId === 'alice');
  // A wrong token is refused and logged (the lockout count) without the token it got.
  expect((await fetch(`${url}/inboxes/alice/messages`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);

  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  const output = serve.stdout + serve.stderr;
  for (const secret of [password, TOKEN, GITHUB_SECRET, LINK_SECRET]) expect(output).not.toContain(secret);
});

it('without a token the startup line says the dashboard is off', async () => {
  const dir = harness.tempDir('vigil-startup-log-');
  const config = harness.writeConfig(dir, { store: `${db.url}?schema=startup_log_2`, port: 0 });
  const serve = harness.serve(config);
  const started = await serve.log('the startup line', (line) => line.msg.startsWith('vigil listening on '));
  expect(started.dashboard).toBe('disabled (no token)');
  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
});
