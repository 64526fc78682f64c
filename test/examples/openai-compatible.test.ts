/**
 * examples/openai-compatible: the example's own agent (toolAgent on the
 * example's Chat Completions `Model`) against the shared fake of that API
 * (examples/fakes/openai.ts, what `npm run fakes -- openai` starts, with
 * this test's script), one worker turn at a time on a throwaway store. The
 * fake answers as the API does: a `tool_calls` reply, then text once the
 * `tool` message with the result comes back. A lookup runs on its own; a
 * cancel asks a person first and runs once the approval says yes; a 429 is
 * retryable, a 400 is not.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Agent } from 'vigil-agents';
import { runOnce, throwawayStore } from 'vigil-agents/testing';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from '../../examples/fakes/index.js';

interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }[];
  tools?: { function: { name: string } }[];
}

let status = 200;
let fake: FakeOpenAI;
let agent: Agent;
const requests = (): ChatRequest[] => fake.requests.map((r) => r.body as ChatRequest);

/** Scripted like a model: the latest user text decides the tool call; a tool result is summed up in words. */
function answer(request: ChatRequest, index: number): FakeReply {
  if (status !== 200) return { error: { status, message: `status ${status}` } };
  const last = request.messages.at(-1)!;
  const calls = (list: [string, Record<string, string>][]) => list.map(([name, input], i) => ({ id: `call_${index + 1}_${i}`, name, input }));
  if (last.role === 'tool') return { text: `Done: ${last.content}` };
  const order = /order (\d+)/.exec(last.content ?? '')?.[1] ?? '0';
  return /cancel/.test(last.content ?? '') ? { toolCalls: calls([['cancel_order', { order }]]) } : { text: 'Let me look.', toolCalls: calls([['lookup_order', { order }]]) };
}

beforeAll(async () => {
  // The shared fake (npm run fakes -- openai), with this test's script instead of the default one.
  fake = await startFakeOpenAI({ apiKey: 'sk-test', script: (call) => answer(call.body as unknown as ChatRequest, call.index) });
  // The example reads where its model is from the environment, as a deployment would.
  process.env.VIGIL_MODEL_URL = fake.url;
  process.env.VIGIL_MODEL = 'test-model';
  process.env.OPENAI_API_KEY = 'sk-test';
  agent = (await import('../../examples/openai-compatible/agent.ts')).default;
});
afterAll(async () => {
  await fake.close();
  for (const name of ['VIGIL_MODEL_URL', 'VIGIL_MODEL', 'OPENAI_API_KEY']) delete process.env[name];
});

async function sent(kit: Awaited<ReturnType<typeof throwawayStore>>, inbox: string): Promise<string[]> {
  const bodies: string[] = [];
  await kit.store.inbox(inbox).dispatch((body) => void bodies.push(body));
  return bodies;
}

it('a lookup runs on its own; the result goes back to the model as a tool message', async () => {
  await using kit = await throwawayStore({ outboxGapMs: 0 });
  fake.requests.length = 0;
  await kit.store.inbox('alice').ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'where is order 42?' } });
  const turn = await runOnce({ store: kit.store, inbox: 'alice', agent, clock: kit.clock });
  expect(turn.runs.map((run) => run.outcome)).toEqual(['messages']);
  expect(await sent(kit, 'alice')).toEqual(['Done: {"status":"shipped","total":"$42.00"}']);

  expect(requests().map((r) => r.model)).toEqual(['test-model', 'test-model']);
  expect(requests()[0]!.messages[0]).toEqual({ role: 'system', content: 'You are the support assistant of a small shop. Be brief.' });
  expect(requests()[0]!.tools?.map((t) => t.function.name)).toEqual(['lookup_order', 'cancel_order']);
  const [assistant, tool] = requests()[1]!.messages.slice(-2);
  expect(assistant).toMatchObject({ role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'call_1_0', function: { name: 'lookup_order', arguments: '{"order":"42"}' } }] });
  expect(tool).toEqual({ role: 'tool', tool_call_id: 'call_1_0', content: '{"status":"shipped","total":"$42.00"}' });
});

it('a cancel asks first; the yes runs it, and the model hears the result', async () => {
  await using kit = await throwawayStore({ outboxGapMs: 0 });
  const inbox = kit.store.inbox('bob');
  await inbox.ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'please cancel order 43' } });
  await runOnce({ store: kit.store, inbox: 'bob', agent, clock: kit.clock });
  const [ask] = await sent(kit, 'bob');
  expect(ask).toMatch(/^Approve\? Cancel order 43 \(approval (tool-\S+)\)$/);
  expect((await inbox.stats()).approvalsPending).toBe(1);

  expect(await inbox.answerApproval(/\(approval (\S+)\)/.exec(ask!)![1]!, 'yes')).toBe('yes');
  await runOnce({ store: kit.store, inbox: 'bob', agent, clock: kit.clock });
  expect(await sent(kit, 'bob')).toEqual(['Done: {"cancelled":true}']);
});

it('a 429 fails the run to be retried; a 400 sends its events dead at once', async () => {
  await using kit = await throwawayStore({ outboxGapMs: 0 });
  const inbox = kit.store.inbox('carol');
  try {
    status = 429;
    await inbox.ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'where is order 42?' } });
    await runOnce({ store: kit.store, inbox: 'carol', agent, clock: kit.clock });
    expect((await inbox.getEvent('chat', 'c1'))?.status).toBe('pending');
    status = 400;
    await inbox.ingest({ source: 'chat', sourceId: 'c2', payload: { text: 'where is order 43?' } });
    kit.clock.advance(60_000);
    await runOnce({ store: kit.store, inbox: 'carol', agent, clock: kit.clock });
    expect((await inbox.events({ status: 'dead' })).map((e) => e.sourceId)).toContain('c2');
  } finally {
    status = 200;
  }
});
