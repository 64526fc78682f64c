/**
 * examples/claude-agent-sdk: the example's own agent (claudeAgentSdk, the
 * real Claude Code child) on the runtime against the example's fake
 * Messages API (the shared examples/fakes/anthropic.ts with the script in
 * examples/claude-agent-sdk/fake-claude.ts, the one its README starts by
 * hand). A lookup runs on its own; a refund asks a person
 * first and runs once the approval says yes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RuntimeEvents, WorkerPool } from 'vigil-agents';
import agent from '../../examples/claude-agent-sdk/agent.js';
import { playModel } from '../../examples/claude-agent-sdk/fake-claude.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../examples/fakes/index.js';
import { ProxyHarness } from '../proxy/proxy-harness.js';
import { defer, tempStore } from '../runtime/helpers.js';

let fake: FakeAnthropic;
const proxies = new ProxyHarness();
let proxyUrl: string;

beforeAll(async () => {
  fake = await startFakeAnthropic({ script: playModel });
  // The example's own offline proxy config, pointed at this fake: the key reaches Claude Code only through it.
  const { port: _port, host: _host, ...config } = JSON.parse(readFileSync(new URL('../../examples/claude-agent-sdk/proxy.offline.json', import.meta.url), 'utf8')) as {
    port: number;
    host: string;
    upstreams: { anthropic: { url: string } };
  };
  config.upstreams.anthropic.url = fake.url;
  proxyUrl = (await proxies.proxy(config as never, { ANTHROPIC_API_KEY: 'sk-ant-fake' })).url;
});
afterAll(async () => {
  await proxies.cleanup();
  await fake.close();
});

it('looks an order up on its own, and refunds only after a yes', async () => {
  const { store } = await tempStore({ outboxGapMs: 0, retryBackoff: { baseMs: 50, maxMs: 100 } });
  const events = new RuntimeEvents();
  const pool = new WorkerPool({ store, agent, events, pollIntervalMs: 100, proxyUrl, approvalLink: (link) => `https://vigil.test/a/${link.approvalId}` });
  await pool.start();
  defer(() => pool.stop({ graceMs: 0 }));
  const inbox = store.inbox('sam');
  const out = async (): Promise<string[]> => {
    const bodies: string[] = [];
    await inbox.dispatch((_body, messages) => void bodies.push(...messages.map((message) => message.body)));
    return bodies;
  };
  // A resume whose approved call Claude Code did not run yet is retried at once (its first try reports 'error').
  const finished = () => events.next('run:finished', (run) => run.outcome !== 'error', AbortSignal.timeout(60_000));

  let done = finished();
  await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'where is order 42?' } });
  expect((await done).outcome).toBe('messages');
  expect(await out()).toEqual(['Done: {"total":19.5,"status":"delivered"}']);

  done = finished();
  await inbox.ingest({ source: 'chat', sourceId: 'm2', payload: { text: 'please refund order 7' } });
  await done;
  const [question] = await out();
  expect(question).toMatch(/^Approve\? Refund order 7\nhttps:\/\/vigil\.test\/a\/sdk-tool-/);
  done = finished();
  await inbox.answerApproval(/a\/(\S+)$/.exec(question!)![1]!, 'yes');
  await done;
  expect(await out()).toEqual(['Done: {"refunded":"7"}']);
}, 90_000);
