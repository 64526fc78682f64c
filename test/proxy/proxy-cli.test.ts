/**
 * `vigil proxy` as a real process: it starts from a config file, says where
 * it listens and which upstreams it serves (never a credential), proxies,
 * reloads on SIGHUP, and exits 0 on SIGTERM. Config errors exit 2.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, ServeProcess, ServiceHarness } from '../fixtures/service-process.js';
import { CREDENTIAL, errorCode, githubConfig, ProxyHarness, rawRequest } from './proxy-harness.js';

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

function startProxy(configFile: string, env: NodeJS.ProcessEnv): ServeProcess {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'proxy', '--config', configFile, '--port', '0'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = new ServeProcess(proc);
  children.push(child);
  return child;
}

describe('vigil proxy', () => {
  it('proxies a request with the credential, reloads on SIGHUP, and exits 0 on SIGTERM', async () => {
    const upstream = await proxies.upstream();
    const dir = services.tempDir('vigil-proxy-cli-');
    const config = services.writeConfig(dir, githubConfig(upstream.url) as Record<string, unknown>, 'proxy.json');
    const child = startProxy(config, { TEST_GITHUB_TOKEN: CREDENTIAL });
    const started = await child.log('vigil proxy listening', (line) => line.msg.startsWith('vigil proxy listening on '));
    const url = started.url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(started.upstreams as object)).toEqual(['github']);

    const response = await rawRequest(url, '/github/repos/x/y?page=2');
    expect(response.status).toBe(200);
    expect(upstream.received.map((r) => [r.url, r.headers.authorization])).toEqual([['/repos/x/y?page=2', CREDENTIAL]]);
    await child.log('the request line', (line) => line.msg === 'proxy request' && line.path === '/repos/x/y' && line.status === 200);

    // Narrow the policy in the file; SIGHUP makes it the one in force.
    const narrowed = githubConfig(upstream.url);
    (narrowed.upstreams.github as { paths: string[] }).paths = ['/user'];
    services.writeConfig(dir, narrowed as Record<string, unknown>, 'proxy.json');
    child.signal('SIGHUP');
    await child.log('the reload', (line) => line.msg === 'proxy config reloaded');
    expect(errorCode(await rawRequest(url, '/github/repos/x/y'))).toBe('path_not_allowed');

    child.signal('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stdout + child.stderr).not.toContain(CREDENTIAL.replace(/^Bearer /, ''));
  });

  it("refuses ';' in a segment and characters that normalise to '.' or '/', and strips method overrides the policy does not allow", async () => {
    const upstream = await proxies.upstream();
    const dir = services.tempDir('vigil-proxy-cli-');
    const config = services.writeConfig(dir, githubConfig(upstream.url) as Record<string, unknown>, 'proxy.json');
    const child = startProxy(config, { TEST_GITHUB_TOKEN: CREDENTIAL });
    const url = (await child.log('vigil proxy listening', (line) => line.msg.startsWith('vigil proxy listening on '))).url as string;
    for (const path of ['/github/repos/..;/admin', '/github/repos/x;a=b', '/github/repos/..%3b/admin', '/github/repos/%EF%BC%8E%EF%BC%8E/admin', '/github/repos%EF%BC%8Fadmin']) {
      const response = await rawRequest(url, path);
      expect([path, response.status, errorCode(response)]).toEqual([path, 403, 'unsafe_path']);
    }
    expect(upstream.received).toEqual([]);
    const overridden = await rawRequest(url, '/github/repos/x/y', { method: 'POST', headers: { 'x-http-method-override': 'DELETE', 'x-http-method': 'PUT', 'x-method-override': 'PATCH' }, body: '{}' });
    expect(overridden.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    expect(Object.keys(upstream.received[0]!.headers).filter((name) => name.includes('method'))).toEqual([]);
  });

  it('a bad config or an unset credential variable exits 2 naming the field', async () => {
    const dir = services.tempDir('vigil-proxy-cli-');
    const bad = services.writeConfig(dir, { upstreams: { github: { url: 'https://api.github.com', header: 'authorization', value: 'v', paths: ['repos'] } } }, 'bad.json');
    let result = await services.cli(['proxy', '--config', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('upstreams.github.paths.0: must start with "/"');

    const unset = services.writeConfig(dir, githubConfig('https://api.github.com') as Record<string, unknown>, 'unset.json');
    result = await services.cli(['proxy', '--config', unset], { env: { TEST_GITHUB_TOKEN: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('upstreams.github.value: environment variable TEST_GITHUB_TOKEN is not set');

    result = await services.cli(['proxy']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--config <file>' not specified");
  });
});
