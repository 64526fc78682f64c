/**
 * mcpTools against a real Streamable HTTP MCP server on 127.0.0.1
 * (test/fixtures/mcp-http-server.ts), reached through a real credential
 * proxy (src/proxy) that adds the bearer token the server checks: the agent
 * side never holds it. A lost session is replaced on the next call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { mcpTools, type McpTools } from '../../../src/adapters/mcp/index.js';
import type { ToolCall } from '../../../src/agent/tools.js';
import { proxyOnlyFetch } from '../../../src/adapters/mcp/proxy-only-fetch.js';
import { recordedCalls } from '../../fixtures/mcp-echo-config.js';
import { startMcpHttpServer, type McpHttpServer } from '../../fixtures/mcp-http-server.js';
import { ProxyHarness } from '../../proxy/proxy-harness.js';

const TOKEN = 'mcp-server-token-0123456789abcdef';
const harness = new ProxyHarness();
let server: McpHttpServer | undefined;
let tools: McpTools | undefined;
let dir: string | undefined;

afterEach(async () => {
  await tools?.close();
  await server?.close();
  await harness.cleanup();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  tools = server = dir = undefined;
});

function call(key: string): ToolCall {
  return { inboxId: 'alice', idempotencyKey: key, approvalId: null, signal: new AbortController().signal, fetch: () => Promise.reject(new Error('no fetch')), memory: {} as ToolCall['memory'] };
}

async function setup() {
  dir = mkdtempSync(join(tmpdir(), 'vigil-mcp-http-'));
  const file = join(dir, 'calls.jsonl');
  server = await startMcpHttpServer({ token: TOKEN, recordFile: file });
  const proxy = await harness.proxy(
    { upstreams: { 'echo-mcp': { url: server.url, header: 'authorization', value: 'env:ECHO_MCP_TOKEN', methods: ['GET', 'POST', 'DELETE'], paths: ['/mcp'] } } },
    { ECHO_MCP_TOKEN: `Bearer ${TOKEN}` },
  );
  tools = await mcpTools({ servers: { echo: { url: 'echo-mcp/mcp' } }, proxyUrl: proxy.url });
  return { file, server, tools };
}

it('tools are listed and run through the proxy, which adds the credential the server checks', async () => {
  const { file, server, tools } = await setup();
  expect(tools.map((t) => t.name).sort()).toEqual(['echo.delete_all', 'echo.env', 'echo.fail', 'echo.say', 'echo.wait']);
  // Not trusted: its annotations suggest nothing.
  expect(tools.permissions).toEqual({});
  const say = tools.find((t) => t.name === 'echo.say')!;
  expect(await say.run({ text: 'over http' }, call('k-http'))).toBe('echo: over http');
  expect(recordedCalls(file)).toMatchObject([{ tool: 'say', input: { text: 'over http' }, idempotencyKey: 'k-http' }]);
  expect(server.requests.length).toBeGreaterThan(1);
  expect(server.requests.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
});

it('a lost session (the server forgot it) is replaced by a new one and the call is made once', async () => {
  const { file, server, tools } = await setup();
  const say = tools.find((t) => t.name === 'echo.say')!;
  expect(await say.run({ text: 'one' }, call('k1'))).toBe('echo: one');
  server.forgetSessions();
  expect(await say.run({ text: 'two' }, call('k2'))).toBe('echo: two');
  expect(recordedCalls(file).map((c) => c.input)).toEqual([{ text: 'one' }, { text: 'two' }]);
});

it('without the credential the server refuses, and mcpTools says which server failed', async () => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-mcp-http-'));
  server = await startMcpHttpServer({ token: TOKEN, recordFile: join(dir, 'calls.jsonl') });
  const proxy = await harness.proxy({ upstreams: { 'echo-mcp': { url: server.url, header: 'authorization', value: 'Bearer wrong', methods: ['GET', 'POST', 'DELETE'], paths: ['/mcp'] } } }, {});
  await expect(mcpTools({ servers: { echo: { url: 'echo-mcp/mcp' } }, proxyUrl: proxy.url })).rejects.toThrow(/^MCP server echo did not answer after 3 attempts to connect: .*401/);
});

it('the server gone mid-way: the call fails with a plain (retryable) Error naming it, and the next calls reconnect once it is back', async () => {
  const { tools } = await setup();
  const say = tools.find((t) => t.name === 'echo.say')!;
  const upstream = server!;
  // The proxy answers 502 while nothing listens upstream.
  await upstream.close();
  const error = await say.run({ text: 'lost' }, call('k-lost')).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(/^MCP server echo answered HTTP 502 during say: .*upstream_unreachable/);
  expect((error as { code?: unknown }).code).toBeUndefined();
  // Back on the same port, the next call opens a new session.
  server = await startMcpHttpServer({ token: TOKEN, recordFile: join(dir!, 'calls.jsonl'), port: Number(new URL(upstream.url).port) });
  expect(await say.run({ text: 'back' }, call('k-back'))).toBe('echo: back');
});

it("the transport's fetch reaches the proxy's origin only: a request elsewhere (a redirect, an endpoint the server names) is refused unsent", async () => {
  const upstream = await harness.upstream();
  const fetchThroughProxy = proxyOnlyFetch(new URL('http://127.0.0.1:1/echo-mcp/mcp'));
  await expect(fetchThroughProxy(`${upstream.url}/mcp`, { method: 'POST' })).rejects.toThrow(/refused: MCP servers are reached through the credential proxy \(http:\/\/127\.0\.0\.1:1\) only/);
  expect(upstream.received).toEqual([]);
});
