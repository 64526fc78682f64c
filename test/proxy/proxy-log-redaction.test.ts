/**
 * The credential proxy's log never carries a credential, even when an
 * error from below quotes one: a real `vigil proxy` whose fetch fails with
 * an error quoting the request's headers (test/fixtures/leaky-fetch.ts)
 * logs the failure with its cause, every configured secret cut out, before
 * and after a SIGHUP that swaps the credential.
 */
import { spawn } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { REPO_ROOT, ServeProcess, ServiceHarness } from '../fixtures/service-process.js';
import { ADMIN_TOKEN, CREDENTIAL, errorCode, githubConfig, ProxyHarness, rawRequest } from './proxy-harness.js';

const ROTATED = 'Bearer ghp_ROTATED-credential-9876543210';

const services = new ServiceHarness();
const proxies = new ProxyHarness();
const children: ServeProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.alive) {
      child.signal('SIGKILL');
      await child.exited;
    }
  }
  await proxies.cleanup();
  await services.cleanup();
});

it('an upstream error that quotes the credential and the admin token is logged with both cut out, also after a SIGHUP swaps the credential', async () => {
  const upstream = await proxies.upstream();
  const dir = services.tempDir('vigil-proxy-redact-');
  const config = services.writeConfig(dir, githubConfig(upstream.url) as Record<string, unknown>, 'proxy.json');
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './test/fixtures/leaky-fetch.ts', 'src/cli/main.ts', 'proxy', '--config', config, '--port', '0'],
    { cwd: REPO_ROOT, env: { ...process.env, TEST_GITHUB_TOKEN: CREDENTIAL }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const child = new ServeProcess(proc);
  children.push(child);
  const url = (await child.log('vigil proxy listening', (line) => line.msg.startsWith('vigil proxy listening on '))).url as string;

  // The agent's own headers are quoted too: the admin token is a secret of the proxy's wherever it comes from.
  const leak = await rawRequest(url, '/github/repos/leak/one', { headers: { 'x-request-note': ADMIN_TOKEN } });
  expect(leak.status).toBe(502);
  expect(errorCode(leak)).toBe('upstream_unreachable');
  const first = await child.log('the first failure', (line) => line.msg === 'proxy request: upstream_unreachable' && line.path === '/repos/leak/one');
  // The cause is there, quoting the headers, with the secrets cut out.
  expect(first.cause).toContain('socket hang up while sending');
  expect(first.cause).toContain('"authorization":"[redacted]"');
  expect(first.cause).toContain('"x-request-note":"[redacted]"');

  // SIGHUP with a rotated credential (inline in the file this time): the new one is cut out too.
  const rotated = githubConfig(upstream.url);
  (rotated.upstreams.github as { value: string }).value = ROTATED;
  services.writeConfig(dir, rotated as Record<string, unknown>, 'proxy.json');
  child.signal('SIGHUP');
  await child.log('the reload', (line) => line.msg === 'proxy config reloaded');
  expect((await rawRequest(url, '/github/repos/leak/two')).status).toBe(502);
  const second = await child.log('the second failure', (line) => line.msg === 'proxy request: upstream_unreachable' && line.path === '/repos/leak/two');
  expect(second.cause).toContain('"authorization":"[redacted]"');

  child.signal('SIGTERM');
  expect(await child.exited).toEqual({ code: 0, signal: null });
  const output = child.stdout + child.stderr;
  for (const secret of [CREDENTIAL, ROTATED, ADMIN_TOKEN]) {
    expect(output).not.toContain(secret);
    expect(output).not.toContain(secret.replace(/^Bearer /, ''));
  }
});
