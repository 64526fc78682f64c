/**
 * examples/openai-compatible: the example's own agent (toolAgent on the
 * example's Chat Completions `Model`) against a local fake of that API,
 * one worker turn at a time on a throwaway store. The fake answers as the
 * API does: a `tool_calls` reply, then text once the `tool` message with the
 * result comes back. A lookup runs on its own; a cancel asks a person first
 * and runs once the approval says yes; a 429 is retryable, a 400 is not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Agent } from 'vigil-agents';
import { runOnce, throwawayStore } from 'vigil-agents/testing';

interface ChatRequest {
  model: string;
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }[];
  tools?: { function: { name: string } }[];
}

const requests: ChatRequest[] = [];
let status = 200;
let server: Server;
let agent: Agent;

/** Scripted like a model: the latest user text decides the tool call; a tool result is summed up in words. */
function answer(request: ChatRequest): unknown {
  const last = request.messages.at(-1)!;
  const message = (content: string | null, calls: [string, Record<string, string>][] = []) => ({
    choices: [
      {
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        message: { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls.map(([name, input], i) => ({ id: `call_${requests.length}_${i}`, type: 'function', function: { name, arguments: JSON.stringify(input) } })) } : {}) },
      },
    ],
  });
  if (last.role === 'tool') return message(`Done: ${last.content}`);
  const order = /order (\d+)/.exec(last.content ?? '')?.[1] ?? '0';
  return /cancel/.test(last.content ?? '') ? message(null, [['cancel_order', { order }]]) : message('Let me look.', [['lookup_order', { order }]]);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      requests.push(request);
      if (req.url !== '/v1/chat/completions' || req.headers.authorization !== 'Bearer sk-test') {
        return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"Incorrect API key provided"}}');
      }
      if (status !== 200) return void res.writeHead(status, { 'content-type': 'application/json' }).end(`{"error":{"message":"status ${status}"}}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(request)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The example reads where its model is from the environment, as a deployment would.
  process.env.VIGIL_MODEL_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.VIGIL_MODEL = 'test-model';
  process.env.OPENAI_API_KEY = 'sk-test';
  agent = (await import('../../examples/openai-compatible/agent.ts')).default;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  for (const name of ['VIGIL_MODEL_URL', 'VIGIL_MODEL', 'OPENAI_API_KEY']) delete process.env[name];
});

async function sent(kit: Awaited<ReturnType<typeof throwawayStore>>, inbox: string): Promise<string[]> {
  const bodies: string[] = [];
  await kit.store.inbox(inbox).dispatch((body) => void bodies.push(body));
  return bodies;
}

it('a lookup runs on its own; the result goes back to the model as a tool message', async () => {
  await using kit = await throwawayStore({ outboxGapMs: 0 });
  requests.length = 0;
  await kit.store.inbox('alice').ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'where is order 42?' } });
  const turn = await runOnce({ store: kit.store, inbox: 'alice', agent, clock: kit.clock });
  expect(turn.runs.map((run) => run.outcome)).toEqual(['messages']);
  expect(await sent(kit, 'alice')).toEqual(['Done: {"status":"shipped","total":"$42.00"}']);

  expect(requests.map((r) => r.model)).toEqual(['test-model', 'test-model']);
  expect(requests[0]!.messages[0]).toEqual({ role: 'system', content: 'You are the support assistant of a small shop. Be brief.' });
  expect(requests[0]!.tools?.map((t) => t.function.name)).toEqual(['lookup_order', 'cancel_order']);
  const [assistant, tool] = requests[1]!.messages.slice(-2);
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
