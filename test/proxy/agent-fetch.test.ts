/**
 * ctx.fetch in a real run: a worker pool configured with the credential
 * proxy hands its agent a fetch that goes through it. The agent reads the
 * upstream's answer; the credential is added on the way and the agent never
 * holds it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/index.js';
import { createProxyFetch } from '../../src/agent/proxy-fetch.js';
import { RuntimeEvents } from '../../src/events.js';
import { WorkerPool } from '../../src/runtime/worker-pool.js';
import { defer, nextEvent, tempStore } from '../runtime/helpers.js';
import { CREDENTIAL, ENV, githubConfig, ProxyHarness } from './proxy-harness.js';

const harness = new ProxyHarness();
afterEach(() => harness.cleanup());

describe('ctx.fetch through the credential proxy', () => {
  it('an agent run reaches the upstream with the credential added by the proxy, and reads the answer', async () => {
    const upstream = await harness.upstream();
    upstream.handler = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"login":"octocat"}');
    const proxy = await harness.proxy(githubConfig(upstream.url), ENV);
    const { store } = await tempStore();
    const seen: { status: number; body: unknown; headers: string }[] = [];
    const agent = defineAgent({
      run: async (ctx) => {
        const response = await ctx.fetch('github/user');
        seen.push({ status: response.status, body: await response.json(), headers: JSON.stringify([...response.headers]) });
        return { nothing: true };
      },
    });
    const events = new RuntimeEvents();
    const pool = new WorkerPool({ store, agent, events, pollIntervalMs: 1e9, proxyFetch: createProxyFetch(proxy.url) });
    await pool.start();
    defer(() => pool.stop({ graceMs: 0 }));
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1' });
    expect((await finished).outcome).toBe('nothing');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ status: 200, body: { login: 'octocat' } });
    expect(seen[0]!.headers).not.toContain(CREDENTIAL);
    expect(upstream.received.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([['GET', '/user', CREDENTIAL]]);
  });
});
