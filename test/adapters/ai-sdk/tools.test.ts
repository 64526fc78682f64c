/**
 * aiSdkTools, and the whole adapter through Vigil's runtime: toolAgent on
 * aiSdkModel(@ai-sdk/anthropic) against the Messages API fake, with AI SDK
 * tools (zod and jsonSchema), on a real SQLite store (WorkerPool), as
 * test/agent/tool-loop.test.ts drives the loop with a scripted model.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeAnthropic, type FakeAnthropic } from '../../../examples/fakes/index.js';
import { aiSdkModel, aiSdkTools } from '../../../src/adapters/ai-sdk/index.js';
import { toolAgent, type Agent, type Store, type ToolLoopSession } from '../../../src/index.js';
import { RuntimeEvents } from '../../../src/events.js';
import { WorkerPool } from '../../../src/runtime/worker-pool.js';
import { defer, nextEvent, tempStore } from '../../runtime/helpers.js';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(() => fake.close());

const model = () => aiSdkModel(createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: 'sk-ant-fake' })('claude-fake'), { maxRetries: 0 });

/** AI SDK tools that record their calls: lookup (zod), refund (jsonSchema). */
function shopTools() {
  const calls: { tool: string; input: unknown; toolCallId: string }[] = [];
  const lookup = tool({
    description: 'Look an order up.',
    inputSchema: z.object({ order: z.string().regex(/^\d+$/) }),
    execute: async (input, { toolCallId }) => {
      calls.push({ tool: 'lookup', input, toolCallId });
      return { order: input.order, total: 19.5 };
    },
  });
  const refund = tool({
    description: 'Refund an order in full.',
    inputSchema: jsonSchema<{ order: string }>({ type: 'object', properties: { order: { type: 'string' } }, required: ['order'], additionalProperties: false }),
    execute: async (input, { toolCallId }) => {
      calls.push({ tool: 'shop.refund', input, toolCallId });
      return { refunded: input.order };
    },
  });
  return { calls, tools: aiSdkTools({ lookup, 'shop.refund': refund }, { summaries: { 'shop.refund': (input) => `Refund order ${String(input.order)}` } }) };
}

async function startPool(store: Store, agent: Agent, runTimeoutMs?: number) {
  const events = new RuntimeEvents();
  const pool = new WorkerPool({ store, agent, events, pollIntervalMs: 1e9, approvalLink: (link) => `https://vigil.test/a/${link.approvalId}`, ...(runTimeoutMs === undefined ? {} : { runTimeoutMs }) });
  await pool.start();
  defer(() => pool.stop({ graceMs: 0 }));
  return events;
}

async function sent(store: Store, inboxId: string): Promise<string[]> {
  const out: string[] = [];
  await store.inbox(inboxId).dispatch((_body, messages) => void out.push(...messages.map((m) => m.body)));
  return out;
}

describe('aiSdkTools', () => {
  it('an AI SDK tool becomes a Vigil tool: its name, description and JSON schema (zod through z.toJSONSchema, jsonSchema as is)', () => {
    const { tools } = shopTools();
    expect(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual([
      { name: 'lookup', description: 'Look an order up.', inputSchema: { type: 'object', properties: { order: { type: 'string', pattern: '^\\d+$' } }, required: ['order'] } },
      { name: 'shop.refund', description: 'Refund an order in full.', inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'], additionalProperties: false } },
    ]);
    expect(tools[1]!.summary!({ order: '7' })).toBe('Refund order 7');
  });

  it('a tool without execute, a provider tool, a schema that is no object, or a summary for no tool is refused with a clear VigilError', () => {
    const schema = z.object({});
    expect(() => aiSdkTools({ ask: tool({ description: 'x', inputSchema: schema }) })).toThrow(/aiSdkTools: tool ask: has no execute function: Vigil runs every tool call itself/);
    expect(() => aiSdkTools({ search: { type: 'provider', description: 'x', inputSchema: schema, execute: async () => 1 } })).toThrow(/tool search: is a provider tool, run by its provider/);
    expect(() => aiSdkTools({ n: tool({ description: 'x', inputSchema: z.string(), execute: async () => 1 }) })).toThrow(/tool n: inputSchema must describe an object/);
    expect(() => aiSdkTools({ n: { description: 'x', execute: async () => 1 } })).toThrow(/tool n: has no inputSchema/);
    expect(() => aiSdkTools({ n: tool({ description: 'x', inputSchema: schema, execute: async () => 1 }) }, { summaries: { m: () => '' } })).toThrow(/a summary is given for m, which is not one of the tools/);
    expect(() => aiSdkTools({ n: tool({ description: 'x', inputSchema: schema, execute: async () => 1 }) }, { summaries: { m: () => '' } })).toThrow(expect.objectContaining({ name: 'VigilError', code: 'invalid_options' }));
  });
  it('run hands execute the call\'s idempotency key as toolCallId and its signal; a throw is the model\'s to read, an abort is rethrown', async () => {
    const seen: unknown[] = [];
    const controller = new AbortController();
    const [echo] = aiSdkTools({
      echo: tool({
        description: 'Echo.',
        inputSchema: z.object({ say: z.string() }),
        execute: async ({ say }, options) => {
          seen.push([options.toolCallId, options.abortSignal, options.messages]);
          if (say === 'boom') throw new Error('boom');
          if (say === 'wait') return new Promise((_resolve, reject) => options.abortSignal!.addEventListener('abort', () => reject(new Error('stopped'))));
          return { said: say };
        },
      }),
    });
    const call = { inboxId: 'alice', idempotencyKey: 'key-1', approvalId: null, signal: controller.signal, fetch: undefined as never, memory: undefined as never };
    expect(await echo!.run({ say: 'hi' }, call)).toEqual({ said: 'hi' });
    expect(seen[0]).toEqual(['key-1', controller.signal, []]);
    expect(await echo!.run({ say: 'boom' }, call)).toEqual({ error: 'echo failed: boom' });
    const waiting = echo!.run({ say: 'wait' }, call);
    const reason = new Error('lease lost');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
  });
});

describe('toolAgent on aiSdkModel with aiSdkTools, on the runtime (SQLite)', () => {
  it('an allowed tool runs, an asked one waits for yes and then runs once with the approved input; the reply goes out; usage is summed', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const shop = shopTools();
    const events = await startPool(store, toolAgent({ model: model(), tools: shop.tools, permissions: { lookup: 'allow', 'shop.refund': { ask: { expiresInMs: 60_000 } } } }));
    fake.enqueue(
      { toolCalls: [{ id: 'toolu_a', name: 'lookup', input: { order: '42' } }], usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2 } },
      // The model sees the dotted name as shop__refund.
      { toolCalls: [{ id: 'toolu_b', name: 'shop__refund', input: { order: '42' } }], usage: { inputTokens: 20, outputTokens: 5 } },
    );
    let finished = nextEvent(events, 'run:finished');
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    const asked = await finished;
    expect(asked.usage).toEqual({ inputTokens: 30, outputTokens: 10, cacheReadTokens: 2, cacheWriteTokens: 0, model: 'claude-fake' });
    // Recorded with the run's finish: 'claude-fake' has no price, so the run is unpriced.
    expect((await store.inbox('alice').stats()).usage.today).toMatchObject({ runs: 1, inputTokens: 30, outputTokens: 10, cacheReadTokens: 2, costUsd: 0, unpricedRuns: 1 });
    expect(asked.decisions).toMatchObject([{ tool: 'lookup', decision: 'allow' }, { tool: 'shop.refund', decision: 'ask' }]);
    expect(shop.calls).toMatchObject([{ tool: 'lookup', input: { order: '42' } }]);
    const approvalId = asked.decisions![1]!.approvalId!;
    expect(await sent(store, 'alice')).toEqual([`Approve? Refund order 42\nhttps://vigil.test/a/${approvalId}`]);

    fake.enqueue({ text: 'Refunded order 42.' });
    finished = nextEvent(events, 'run:finished');
    await store.inbox('alice').answerApproval(approvalId, 'yes');
    expect((await finished).decisions).toMatchObject([{ tool: 'shop.refund', decision: 'approved', approvalId }]);
    expect(shop.calls.map((c) => [c.tool, c.input])).toEqual([['lookup', { order: '42' }], ['shop.refund', { order: '42' }]]);
    // The toolCallId execute gets is the call's idempotency key: stable across retries, and a different one per call.
    expect(shop.calls[1]!.toolCallId).toMatch(/^[\w-]{16,}$/);
    expect(shop.calls[1]!.toolCallId).not.toBe(shop.calls[0]!.toolCallId);
    expect(await sent(store, 'alice')).toEqual(['Refunded order 42.']);
    const lastRequest = fake.requests.at(-1)!.body as { messages: { content: unknown }[] };
    expect(lastRequest.messages.at(-1)!.content).toMatchObject([{ type: 'tool_result', tool_use_id: 'toolu_b', content: JSON.stringify({ refunded: '42' }) }]);
  });

  it('input that does not fit the zod schema is refused by Vigil\'s check: execute never runs', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const shop = shopTools();
    const events = await startPool(store, toolAgent({ model: model(), tools: shop.tools, permissions: { lookup: 'allow' } }));
    fake.enqueue({ toolCalls: [{ id: 'toolu_c', name: 'lookup', input: { order: 'forty-two' } }] }, { text: 'That is no order number.' });
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('bob').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'look up forty-two' } });
    expect((await finished).decisions).toMatchObject([{ tool: 'lookup', decision: 'invalid' }]);
    expect(shop.calls).toEqual([]);
  });

  it('an execute that throws: the model hears the error as the result, the run finishes, and the tool is not run again', async () => {
    const { store } = await tempStore({ outboxGapMs: 0, retryBackoff: { baseMs: 1, maxMs: 1 } });
    let runs = 0;
    const flaky = tool({
      description: 'Charge a card.',
      inputSchema: z.object({ amount: z.number() }),
      execute: async (): Promise<{ charged: boolean }> => {
        runs += 1;
        throw new Error('card declined');
      },
    });
    const events = await startPool(store, toolAgent({ model: model(), tools: aiSdkTools({ charge: flaky }), permissions: { charge: 'allow' } }));
    fake.enqueue({ toolCalls: [{ id: 'toolu_d', name: 'charge', input: { amount: 5 } }] }, { text: 'The card was declined.' });
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('carol').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'charge 5' } });
    expect((await finished).outcome).toBe('messages');
    expect(runs).toBe(1);
    const lastRequest = fake.requests.at(-1)!.body as { messages: { content: unknown }[] };
    expect(lastRequest.messages.at(-1)!.content).toMatchObject([{ type: 'tool_result', tool_use_id: 'toolu_d', content: JSON.stringify({ error: 'charge failed: card declined' }) }]);
    expect(await sent(store, 'carol')).toEqual(['The card was declined.']);
    expect(await store.inbox('carol').stats()).toMatchObject({ events: { pending: 0, done: 1 } });
  });

  it('an aborted run (timeout) while execute runs: execute\'s abortSignal fires, the model is told nothing, and the event is left for a retry', async () => {
    const { store } = await tempStore({ outboxGapMs: 0, retryBackoff: { baseMs: 60_000, maxMs: 60_000 } });
    const seen: AbortSignal[] = [];
    const slow = tool({
      description: 'Wait for a slow system.',
      inputSchema: z.object({}),
      execute: (_input, { abortSignal }) => {
        seen.push(abortSignal!);
        return new Promise((_resolve, reject) => abortSignal!.addEventListener('abort', () => reject(new Error('aborted by signal'))));
      },
    });
    const events = await startPool(store, toolAgent({ model: model(), tools: aiSdkTools({ slow }), permissions: { slow: 'allow' } }), 400);
    const before = fake.requests.length;
    fake.enqueue({ toolCalls: [{ id: 'toolu_e', name: 'slow', input: {} }] });
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('dave').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'go' } });
    expect((await finished).outcome).toBe('timeout');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.aborted).toBe(true);
    // One model call: the abort was not handed to the model as the tool's result.
    expect(fake.requests.length - before).toBe(1);
    expect(await store.inbox('dave').getEvent('chat', 'm1')).toMatchObject({ status: 'pending', attempts: 1 });
    expect(((await store.inbox('dave').getSession()) as ToolLoopSession | null)?.history ?? []).toEqual([]);
  });

  it('an aborted run (timeout) while the model is answering: no tool runs, nothing goes out', async () => {
    const { store } = await tempStore({ outboxGapMs: 0, retryBackoff: { baseMs: 60_000, maxMs: 60_000 } });
    const shop = shopTools();
    const events = await startPool(store, toolAgent({ model: model(), tools: shop.tools, permissions: { lookup: 'allow' } }), 400);
    fake.enqueue(() => new Promise<never>(() => undefined));
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('erin').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'look up 42' } });
    expect((await finished).outcome).toBe('timeout');
    expect(shop.calls).toEqual([]);
    expect(await sent(store, 'erin')).toEqual([]);
    expect(await store.inbox('erin').getEvent('chat', 'm1')).toMatchObject({ status: 'pending' });
  });
});
