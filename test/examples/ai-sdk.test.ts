/**
 * examples/ai-sdk: the example's agent (toolAgent on aiSdkModel, tools
 * from aiSdkTools) against the same fakes its README starts by hand
 * (examples/fakes/: `npm run fakes -- anthropic`, `-- openai`, with their
 * default script), one worker turn at a time on a throwaway store, for
 * both providers the example offers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOnce, throwawayStore } from 'vigil-agents/testing';
import { startFakeAnthropic, startFakeOpenAI, type FakeAnthropic, type FakeOpenAI } from '../../examples/fakes/index.js';
import type { Agent } from '../../src/index.js';

let anthropic: FakeAnthropic;
let openai: FakeOpenAI;
let example: typeof import('../../examples/ai-sdk/agent.ts');

beforeAll(async () => {
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-fake' });
  openai = await startFakeOpenAI({ apiKey: 'sk-fake' });
  // The module's default agent is built from the environment at import, as `vigil serve` loads it.
  process.env.ANTHROPIC_BASE_URL = anthropic.url;
  process.env.ANTHROPIC_API_KEY = 'sk-ant-fake';
  example = await import('../../examples/ai-sdk/agent.ts');
});
afterAll(async () => {
  await anthropic.close();
  await openai.close();
  for (const name of ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY']) delete process.env[name];
});

async function sent(kit: Awaited<ReturnType<typeof throwawayStore>>, inbox: string): Promise<string[]> {
  const bodies: string[] = [];
  await kit.store.inbox(inbox).dispatch((body) => void bodies.push(body));
  return bodies;
}

const agents: [string, () => Agent, () => { requests: { body: unknown }[] }][] = [
  ['anthropic (the default export)', () => example.default, () => anthropic],
  ['openai-compatible', () => example.supportAgent(example.modelFromEnv({ AI_SDK_PROVIDER: 'openai-compatible', OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: 'sk-fake', VIGIL_MODEL: 'fake-model' })), () => openai],
];

describe.each(agents)('examples/ai-sdk on %s', (_label, agent, fake) => {
  it('a lookup runs on its own and the model\'s answer goes out', async () => {
    await using kit = await throwawayStore({ outboxGapMs: 0 });
    await kit.store.inbox('alice').ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'lookup_order order=42' } });
    const turn = await runOnce({ store: kit.store, inbox: 'alice', agent: agent(), clock: kit.clock });
    expect(turn.runs.map((run) => run.outcome)).toEqual(['messages']);
    expect(await sent(kit, 'alice')).toEqual(['Done: {"status":"shipped","total":"$42.00"}']);
    expect(JSON.stringify(fake().requests.at(-1)!.body)).toContain('You are the support assistant of a small shop.');
  });

  it('a cancel asks first; yes runs it once; a no for another order never runs it', async () => {
    await using kit = await throwawayStore({ outboxGapMs: 0 });
    const inbox = kit.store.inbox('bob');
    await inbox.ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'please cancel_order order=43' } });
    await runOnce({ store: kit.store, inbox: 'bob', agent: agent(), clock: kit.clock });
    const [ask] = await sent(kit, 'bob');
    expect(ask).toMatch(/^Approve\? Cancel order 43 \(approval (tool-\S+)\)$/);
    expect(await inbox.answerApproval(/\(approval (\S+)\)/.exec(ask!)![1]!, 'yes')).toBe('yes');
    await runOnce({ store: kit.store, inbox: 'bob', agent: agent(), clock: kit.clock });
    expect(await sent(kit, 'bob')).toEqual(['Done: {"cancelled":true}']);

    await inbox.ingest({ source: 'chat', sourceId: 'c2', payload: { text: 'please cancel_order order=99' } });
    await runOnce({ store: kit.store, inbox: 'bob', agent: agent(), clock: kit.clock });
    const [second] = await sent(kit, 'bob');
    expect(second).toMatch(/^Approve\? Cancel order 99 /);
    await inbox.answerApproval(/\(approval (\S+)\)/.exec(second!)![1]!, 'no');
    await runOnce({ store: kit.store, inbox: 'bob', agent: agent(), clock: kit.clock });
    expect(await sent(kit, 'bob')).toEqual(['Done: Not done: the user declined this action']);
  });
});
