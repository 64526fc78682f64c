/**
 * Which of the agent's headers reach the upstream, through a real proxy to
 * a fake upstream on 127.0.0.1: never the ones that reroute a request
 * (some servers route by `X-Original-URL` or `X-Forwarded-Prefix` in place
 * of the request line, so the path check would be gone around); always the
 * ones model APIs and MCP over Streamable HTTP need; and, where an upstream
 * declares `forwardHeaders`, only those.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { parseProxyConfig } from '../../src/proxy/index.js';
import { ADMIN_TOKEN, ProxyHarness, rawRequest } from './proxy-harness.js';

const harness = new ProxyHarness();
afterEach(() => harness.cleanup());

const KEY = 'sk-ant-proxy-headers-test-key-0123456789';

/** Headers an agent could send to be routed somewhere other than the path the proxy checked, or to pass for another address. */
const REROUTING: Record<string, string> = {
  'X-Original-URL': '/admin/delete-everything',
  'X-Rewrite-URL': '/admin/delete-everything',
  'X-Original-URI': '/admin',
  'X-Original-Host': 'internal.example',
  'X-Forwarded-For': '10.0.0.1',
  'X-Forwarded-Host': 'internal.example',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Port': '8443',
  'X-Forwarded-Prefix': '/admin',
  'X-Forwarded-Server': 'internal.example',
  'X-Forwarded': 'for=10.0.0.1',
  Forwarded: 'for=10.0.0.1;host=internal.example;proto=https',
  'X-Real-IP': '10.0.0.1',
  'X-Client-IP': '10.0.0.1',
  'True-Client-IP': '10.0.0.1',
  'X-Host': 'internal.example',
  'X-HTTP-Host-Override': 'internal.example',
};

/** What the Anthropic SDK sends beside its key, and what an MCP client sends over Streamable HTTP. */
const MODEL_AND_MCP: Record<string, string> = {
  'anthropic-version': '2023-06-01',
  'anthropic-beta': 'prompt-caching-2024-07-31,token-efficient-tools-2025-02-19',
  'x-stainless-lang': 'js',
  'x-stainless-package-version': '0.52.0',
  'x-stainless-runtime': 'node',
  'x-stainless-retry-count': '0',
  'x-stainless-timeout': '600',
  'mcp-session-id': '1868a90c-8a2b-4f7e-9a5e-5f0f4b1f2a3c',
  'mcp-protocol-version': '2025-06-18',
  'last-event-id': 'evt-41',
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'user-agent': 'Anthropic/JS 0.52.0',
};

async function anthropicProxy(extra: Record<string, unknown> = {}) {
  const upstream = await harness.upstream();
  const proxy = await harness.proxy(
    { adminToken: ADMIN_TOKEN, upstreams: { anthropic: { url: upstream.url, header: 'x-api-key', value: KEY, methods: ['GET', 'POST', 'DELETE'], paths: ['/v1/', '/mcp'], ...extra } } },
    {},
  );
  return { upstream, proxy };
}

describe('headers towards the upstream', () => {
  it('none of the rerouting headers arrives; every model API and MCP header does, as sent', async () => {
    const { upstream, proxy } = await anthropicProxy();
    const response = await rawRequest(proxy.url, '/anthropic/v1/messages', { method: 'POST', headers: { ...REROUTING, ...MODEL_AND_MCP }, body: '{"model":"claude"}' });
    expect(response.status).toBe(200);
    const [received] = upstream.received;
    expect(received!.url).toBe('/v1/messages');
    const rerouting = new Set(Object.keys(REROUTING).map((name) => name.toLowerCase()));
    expect(Object.keys(received!.headers).filter((name) => rerouting.has(name) || name.startsWith('x-forwarded'))).toEqual([]);
    for (const [name, value] of Object.entries(MODEL_AND_MCP)) expect([name, received!.headers[name]]).toEqual([name, value]);
    expect(received!.headers['x-api-key']).toBe(KEY);
    expect(received!.body).toBe('{"model":"claude"}');
  });

  it('an MCP session over Streamable HTTP: the SSE answer streams back event by event with its session header; the next request carries it', async () => {
    const { upstream, proxy } = await anthropicProxy();
    let second: () => void = () => undefined;
    upstream.handler = (req, res) => {
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': 'session-7' });
      res.write('id: evt-1\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n');
      second = () => res.end('id: evt-2\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    };
    const response = await fetch(`${proxy.url}/anthropic/mcp`, {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
    });
    expect([response.status, response.headers.get('content-type'), response.headers.get('mcp-session-id')]).toEqual([200, 'text/event-stream', 'session-7']);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    // The upstream has not finished: only a streaming proxy can deliver the first event now.
    expect(decoder.decode((await reader.read()).value)).toBe('id: evt-1\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n');
    second();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    expect(rest).toBe('id: evt-2\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
    // Resuming and ending the session: the client's headers reach the server.
    const resumed = await fetch(`${proxy.url}/anthropic/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': 'session-7', 'last-event-id': 'evt-2', 'mcp-protocol-version': '2025-06-18' } });
    expect(resumed.status).toBe(204);
    const ended = upstream.received[1]!;
    expect([ended.method, ended.headers['mcp-session-id'], ended.headers['last-event-id'], ended.headers['mcp-protocol-version']]).toEqual(['DELETE', 'session-7', 'evt-2', '2025-06-18']);
  });

  it('forwardHeaders: only the listed headers pass (the credential always), and still no rerouting one', async () => {
    const { upstream, proxy } = await anthropicProxy({ forwardHeaders: ['Content-Type', 'anthropic-version', 'x-stainless-lang'] });
    const response = await rawRequest(proxy.url, '/anthropic/v1/messages', { method: 'POST', headers: { ...REROUTING, ...MODEL_AND_MCP, 'x-agent': 'dropped' }, body: '{}' });
    expect(response.status).toBe(200);
    const headers = upstream.received[0]!.headers;
    // What fetch adds on its own (framing, and its defaults for accept and user-agent in place of the agent's, which were not listed).
    expect([headers.accept, headers['user-agent']]).toEqual(['*/*', 'node']);
    const FETCH_OWN = ['host', 'connection', 'content-length', 'accept-encoding', 'accept-language', 'sec-fetch-mode', 'accept', 'user-agent'];
    expect(Object.keys(headers).filter((name) => !FETCH_OWN.includes(name)).sort()).toEqual(['anthropic-version', 'content-type', 'x-api-key', 'x-stainless-lang']);
    const status = await rawRequest(proxy.url, '/_admin/status', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(JSON.parse(status.body)).toMatchObject({ upstreams: [{ name: 'anthropic', forwardHeaders: ['content-type', 'anthropic-version', 'x-stainless-lang'] }] });
  });

  it('a forwardHeaders list naming a header the proxy never forwards is a config error, naming it', () => {
    const upstream = (forwardHeaders: string[]) => ({ upstreams: { a: { url: 'http://127.0.0.1:1', header: 'x-key', value: 'k', paths: ['/'], forwardHeaders } } });
    for (const name of ['X-Forwarded-Host', 'forwarded', 'x-original-url', 'authorization', 'cookie', 'host', 'connection', 'accept-encoding']) {
      expect(() => parseProxyConfig(upstream(['content-type', name])), name).toThrow(
        expect.objectContaining({
          name: 'ConfigError',
          issues: ['upstreams.a.forwardHeaders.1: is never forwarded (hop-by-hop, a credential, set by the proxy, or a header that reroutes a request); remove it'],
        }),
      );
    }
    expect(() => parseProxyConfig(upstream(['not a header']))).toThrow(ConfigError);
    expect(parseProxyConfig(upstream(['Anthropic-Version'])).upstreams.a!.forwardHeaders).toEqual(['anthropic-version']);
  });
});
