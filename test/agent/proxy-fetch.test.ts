/** createProxyFetch: what agents get as ctx.fetch. Paths resolve against the proxy; absolute URLs never leave through it. */
import { afterEach, describe, expect, it } from 'vitest';
import { createProxyFetch } from '../../src/agent/proxy-fetch.js';
import { CREDENTIAL, ENV, githubConfig, ProxyHarness } from '../proxy/proxy-harness.js';

const harness = new ProxyHarness();
afterEach(() => harness.cleanup());

describe('createProxyFetch', () => {
  it("ctx.fetch('github/repos/x/y') reaches the upstream through the proxy, with the credential added there", async () => {
    const upstream = await harness.upstream();
    const proxy = await harness.proxy(githubConfig(upstream.url), ENV);
    const proxyFetch = createProxyFetch(proxy.url);
    const response = await proxyFetch('github/repos/x/y?per_page=5');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    // A leading slash and a base URL with a trailing slash mean the same.
    expect((await createProxyFetch(`${proxy.url}/`)('/github/user', { method: 'POST', body: '{"a":1}' })).status).toBe(200);
    expect(upstream.received.map((r) => [r.method, r.url, r.headers.authorization, r.body])).toEqual([
      ['GET', '/repos/x/y?per_page=5', CREDENTIAL, ''],
      ['POST', '/user', CREDENTIAL, '{"a":1}'],
    ]);
  });

  it('refuses absolute and protocol-relative URLs without sending anything', async () => {
    const upstream = await harness.upstream();
    const proxyFetch = createProxyFetch('http://127.0.0.1:1');
    for (const url of [`${upstream.url}/repos/x`, 'https://api.github.com/user', '//evil.example/x', 'HTTP://x/y', 'file:///etc/passwd']) {
      await expect(proxyFetch(url)).rejects.toThrow(/credential proxy/);
    }
    expect(upstream.received).toEqual([]);
  });

  it('does not follow a same-origin redirect the proxy passes back', async () => {
    const upstream = await harness.upstream();
    upstream.handler = (req, res) => {
      if (req.url === '/repos/old') res.writeHead(302, { location: '/repos/new' }).end();
      else res.writeHead(200).end();
    };
    const proxy = await harness.proxy(githubConfig(upstream.url), ENV);
    const response = await createProxyFetch(proxy.url)('github/repos/old');
    expect(response.status).toBe(302);
    expect(upstream.received.map((r) => r.url)).toEqual(['/repos/old']);
  });
});
