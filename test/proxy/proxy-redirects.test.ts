/**
 * An upstream's redirects through a real proxy, from a fake upstream on
 * 127.0.0.1: never passed back as sent. Each Location is resolved against
 * the URL that was asked (as a browser's WHATWG parser does), re-checked
 * against the upstream's policy like a request, and handed back as the
 * path through the proxy; or refused with 502 `redirect_refused`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CREDENTIAL, ENV, errorCode, githubConfig, ProxyHarness, rawRequest } from './proxy-harness.js';

const harness = new ProxyHarness();
afterEach(() => harness.cleanup());

/** A proxy whose "github" upstream answers every request for /repos/x/y with `location`; what the agent gets back. */
async function redirectTo(location: (upstreamUrl: string) => string, overrides: Record<string, unknown> = {}, path = '/github/repos/x/y') {
  const upstream = await harness.upstream();
  const proxy = await harness.proxy(githubConfig(upstream.url, overrides), ENV);
  upstream.handler = (_req, res) => res.writeHead(302, { location: location(upstream.url) }).end();
  const response = await rawRequest(proxy.url, path);
  return { response, upstream, proxy };
}

describe('redirects from the upstream', () => {
  it.each([
    ['a path on the upstream', () => '/repos/new/name', '/github/repos/new/name'],
    ['an absolute URL on the upstream, query and fragment kept', (up: string) => `${up}/repos/new/name?page=2#top`, '/github/repos/new/name?page=2#top'],
    ['a relative reference, resolved against the URL asked', () => 'z', '/github/repos/x/z'],
    ['dot segments, resolved', () => '../../user', '/github/user'],
  ])('%s: rewritten to the path through the proxy', async (_, location, expected) => {
    const { response, upstream } = await redirectTo(location);
    expect([response.status, response.headers.location]).toEqual([302, expected]);
    expect(upstream.received).toHaveLength(1);
  });

  it.each([
    // WHATWG reads the backslash as the end of the host (path "/@evil.example/"); an RFC 3986 client reads evil.example as the host.
    ['the upstream\'s own host, then \\@ and another host', (up: string) => `${up}\\@evil.example/`],
    ['the upstream\'s own host, then /\\ and another host', (up: string) => `${up}/\\evil.example/x`],
    ['a path on the upstream the policy does not allow', () => '/admin/keys'],
    ['an encoded dot-dot out of an allowed prefix', () => '/repos/%2e%2e/admin'],
    ['an encoded slash', () => '/repos/a%2Fb'],
    ['a path-relative backslash (another host to a browser)', () => '/\\evil.example/repos/x'],
    ['protocol-relative', () => '//evil.example/repos/x'],
    ['another origin', () => 'http://127.0.0.1:1/repos/x'],
    ['another scheme on the same host', (up: string) => up.replace('http:', 'https:') + '/repos/x'],
    ['not a URL at all', () => 'http://[::1'],
  ])('%s: 502 redirect_refused, no Location, nothing followed', async (_, location) => {
    const { response, upstream } = await redirectTo(location);
    expect([response.status, errorCode(response), response.headers.location]).toEqual([502, 'redirect_refused', undefined]);
    expect(response.body).not.toContain('evil.example');
    expect(upstream.received).toHaveLength(1);
  });

  it('the upstream\'s own host, then \\@ and another host, where the policy allows every path: a proxy path with one reading for any client', async () => {
    const upstream = await harness.upstream();
    const proxy = await harness.proxy({ upstreams: { github: { url: upstream.url, header: 'authorization', value: 'env:TEST_GITHUB_TOKEN', paths: ['/'] } } }, ENV);
    upstream.handler = (_req, res) => res.writeHead(302, { location: `${upstream.url}\\@evil.example/` }).end();
    const response = await rawRequest(proxy.url, '/github/repos/x/y');
    // A path, so no client can find a host in it: no scheme, no "//", no backslash.
    expect([response.status, response.headers.location]).toEqual([302, '/github/@evil.example/']);
    expect(new URL(response.headers.location!, proxy.url).origin).toBe(new URL(proxy.url).origin);
  });

  it('an upstream with a base path: a redirect inside it keeps the proxy path; one outside it is refused', async () => {
    const upstream = await harness.upstream();
    const proxy = await harness.proxy({ upstreams: { api: { url: `${upstream.url}/v2`, header: 'x-api-key', value: 'k', paths: ['/things/'] } } }, {});
    upstream.handler = (req, res) => res.writeHead(301, { location: req.url === '/v2/things/1' ? '/v2/things/2' : '/v1/things/1' }).end();
    const inside = await rawRequest(proxy.url, '/api/things/1');
    expect([inside.status, inside.headers.location]).toEqual([301, '/api/things/2']);
    const outside = await rawRequest(proxy.url, '/api/things/3');
    expect([outside.status, errorCode(outside)]).toEqual([502, 'redirect_refused']);
  });

  it('an agent that follows redirects stays on the proxy: the next hop is checked and carries the credential', async () => {
    const upstream = await harness.upstream();
    const proxy = await harness.proxy(githubConfig(upstream.url), ENV);
    upstream.handler = (req, res) => {
      if (req.url === '/repos/old/name') res.writeHead(301, { location: `${upstream.url}/repos/new/name` }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('moved here');
    };
    const response = await fetch(`${proxy.url}/github/repos/old/name`);
    expect([response.status, await response.text(), response.url]).toEqual([200, 'moved here', `${proxy.url}/github/repos/new/name`]);
    expect(upstream.received.map((r) => [r.url, r.headers.authorization])).toEqual([
      ['/repos/old/name', CREDENTIAL],
      ['/repos/new/name', CREDENTIAL],
    ]);
  });
});
