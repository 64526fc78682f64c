/**
 * aiSdkModel against local fakes of the two wire formats most providers
 * speak (examples/fakes/: Anthropic's Messages API, OpenAI's Chat
 * Completions), through the real AI SDK providers pointed at them by base
 * URL. One suite, run for ai 6's providers (model.test.ts, Node 20 and up)
 * and ai 7's (model-ai7.test.ts, Node 22 and up): the same adapter must
 * take a model of either spec version.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel, aiSdkTools, type AiSdkTool } from '../../../src/adapters/ai-sdk/index.js';
import type { Turn } from '../../../src/agent/conversation.js';
import { ModelError, type Model, type ToolSpec } from '../../../src/agent/model.js';
import { startFakeAnthropic, startFakeOpenAI, type FakeAnthropic, type FakeOpenAI } from '../../../examples/fakes/index.js';

export interface Providers {
  /** createAnthropic of @ai-sdk/anthropic (3 for ai 6, 4 for ai 7). */
  createAnthropic(options: { baseURL: string; apiKey: string }): (modelId: string) => unknown;
  /** createOpenAICompatible of @ai-sdk/openai-compatible (2 for ai 6, 3 for ai 7). */
  createOpenAICompatible(options: { name: string; baseURL: string; apiKey: string }): (modelId: string) => unknown;
  /** The same major's `tool` and `jsonSchema` (of `ai` 6 or 7), for aiSdkTools. */
  tool(definition: Record<string, unknown>): unknown;
  jsonSchema(schema: Record<string, unknown>): unknown;
}

const ANTHROPIC_KEY = 'sk-ant-test-0123456789abcdefghij';
const OPENAI_KEY = 'sk-test-0123456789abcdefghijkl';

const lookup: ToolSpec = { name: 'lookup', description: 'Look an order up.', inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] } };
const ask = (text: string): Turn[] => [{ role: 'user', content: [{ type: 'text', text }] }];
const step = (model: Model, history: Turn[], tools: ToolSpec[] = [], signal = new AbortController().signal) => model.step(history, tools, signal);

/** The conversation after the model called lookup twice: one result, one refusal, and a new message. */
const afterCalls: Turn[] = [
  { role: 'user', content: [{ type: 'text', text: 'look up 42 and 43' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'call_1', name: 'lookup', input: { order: '42' } },
      { type: 'tool_use', id: 'call_2', name: 'lookup', input: { order: '43' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'call_1', content: '{"total":19.5}' },
      { type: 'tool_result', tool_use_id: 'call_2', content: 'Not done: the user declined this action', is_error: true },
      { type: 'text', text: 'and hurry' },
    ],
  },
];

export function modelSuite(label: string, load: () => Promise<Providers>): void {
  let providers: Providers;
  let anthropicFake: FakeAnthropic;
  let openaiFake: FakeOpenAI;
  beforeAll(async () => {
    providers = await load();
    anthropicFake = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    openaiFake = await startFakeOpenAI({ apiKey: OPENAI_KEY });
  });
  afterAll(async () => {
    await anthropicFake?.close();
    await openaiFake?.close();
  });

  const anthropicModel = (options = {}, baseURL = `${anthropicFake.url}/v1`) => aiSdkModel(providers.createAnthropic({ baseURL, apiKey: ANTHROPIC_KEY })('claude-fake'), options);
  const openaiModel = (options = {}, baseURL = openaiFake.url) => aiSdkModel(providers.createOpenAICompatible({ name: 'local', baseURL, apiKey: OPENAI_KEY })('llama-fake'), options);

  it(`${label}: aiSdkTools takes this major's tool() with a zod or a jsonSchema schema, and runs its execute`, async () => {
    const seen: unknown[] = [];
    const tools = aiSdkTools({
      lookup: providers.tool({ description: 'Look up.', inputSchema: z.object({ order: z.string() }), execute: async (input: unknown, options: { toolCallId: string }) => (seen.push([input, options.toolCallId]), { ok: true }) }) as AiSdkTool,
      raw: providers.tool({ description: 'Raw.', inputSchema: providers.jsonSchema({ type: 'object', properties: { n: { type: 'number' } } }), execute: async () => 1 }) as AiSdkTool,
    });
    expect(tools.map((t) => [t.name, t.inputSchema])).toEqual([
      ['lookup', { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] }],
      ['raw', { type: 'object', properties: { n: { type: 'number' } } }],
    ]);
    const call = { inboxId: 'a', idempotencyKey: 'key-7', approvalId: null, signal: new AbortController().signal, fetch: undefined as never, memory: undefined as never };
    expect(await tools[0]!.run({ order: '1' }, call)).toEqual({ ok: true });
    expect(seen).toEqual([[{ order: '1' }, 'key-7']]);
  });

  describe(`${label}: @ai-sdk/anthropic against the Messages API fake`, () => {
    it('text: the system prompt and the turn go out, the reply comes back as a turn with end_turn and usage with cache tokens', async () => {
      anthropicFake.enqueue({ text: 'Hello, Alice.', usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 10 } });
      const reply = await step(anthropicModel({ system: 'Be brief.', maxOutputTokens: 300 }), ask('hi'));
      expect(reply).toEqual({
        turn: { role: 'assistant', content: [{ type: 'text', text: 'Hello, Alice.' }] },
        stopReason: 'end_turn',
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 10, model: 'claude-fake' },
      });
      expect(anthropicFake.requests.at(-1)!.body).toMatchObject({ model: 'claude-fake', max_tokens: 300, system: [{ type: 'text', text: 'Be brief.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    });

    it('tool calls: the tools go out as the API\'s tools, a call comes back as tool_use; results (an error marked is_error) go back in the API\'s shape', async () => {
      anthropicFake.enqueue({ text: 'Let me look.', toolCalls: [{ id: 'toolu_1', name: 'lookup', input: { order: '42' } }] });
      const model = anthropicModel();
      const reply = await step(model, ask('look up 42'), [lookup]);
      expect(reply.stopReason).toBe('tool_use');
      expect(reply.turn.content).toEqual([
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { order: '42' } },
      ]);
      expect(anthropicFake.requests.at(-1)!.body).toMatchObject({ tools: [{ name: 'lookup', description: 'Look an order up.', input_schema: lookup.inputSchema }] });

      anthropicFake.enqueue({ text: '42 came to 19.50; 43 was not looked up.' });
      await step(model, afterCalls, [lookup]);
      const sent = anthropicFake.requests.at(-1)!.body as { messages: { role: string; content: unknown[] }[] };
      expect(sent.messages[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'call_1', name: 'lookup', input: { order: '42' } }, { type: 'tool_use', id: 'call_2' }] });
      expect(sent.messages[2]!.content).toMatchObject([
        { type: 'tool_result', tool_use_id: 'call_1', content: '{"total":19.5}' },
        { type: 'tool_result', tool_use_id: 'call_2', is_error: true, content: 'Not done: the user declined this action' },
        { type: 'text', text: 'and hurry' },
      ]);
    });

    errorTests(() => anthropicFake, (baseURL) => anthropicModel({ maxRetries: 1 }, baseURL), ANTHROPIC_KEY);
  });

  describe(`${label}: @ai-sdk/openai-compatible against the Chat Completions fake`, () => {
    it('text: the reply comes back as a turn with end_turn; usage counts the cached prompt apart', async () => {
      openaiFake.enqueue({ text: 'Hello, Bob.', usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 30 } });
      const reply = await step(openaiModel({ system: 'Be brief.' }), ask('hi'));
      expect(reply).toEqual({
        turn: { role: 'assistant', content: [{ type: 'text', text: 'Hello, Bob.' }] },
        stopReason: 'end_turn',
        // The prompt was 100 tokens, 30 of them from the cache: input is the 70 the cache did not serve.
        usage: { inputTokens: 70, outputTokens: 20, cacheReadTokens: 30, model: 'llama-fake' },
      });
      expect(openaiFake.requests.at(-1)!.body).toMatchObject({ model: 'llama-fake', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }] });
    });

    it('tool calls: tools go out as functions, a call comes back as tool_use; results go back as tool messages', async () => {
      openaiFake.enqueue({ toolCalls: [{ id: 'call_9', name: 'lookup', input: { order: '42' } }] });
      const model = openaiModel();
      const reply = await step(model, ask('look up 42'), [lookup]);
      expect(reply.stopReason).toBe('tool_use');
      expect(reply.turn.content).toEqual([{ type: 'tool_use', id: 'call_9', name: 'lookup', input: { order: '42' } }]);
      expect(openaiFake.requests.at(-1)!.body).toMatchObject({ tools: [{ type: 'function', function: { name: 'lookup', description: 'Look an order up.', parameters: lookup.inputSchema } }] });

      openaiFake.enqueue({ text: 'Done.' });
      await step(model, afterCalls, [lookup]);
      const sent = openaiFake.requests.at(-1)!.body as { messages: Record<string, unknown>[] };
      expect(sent.messages.slice(1)).toMatchObject([
        { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'call_1', function: { name: 'lookup', arguments: '{"order":"42"}' } }, { id: 'call_2' }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"total":19.5}' },
        { role: 'tool', tool_call_id: 'call_2', content: 'Not done: the user declined this action' },
        { role: 'user', content: 'and hurry' },
      ]);
    });

    it('a model id string, or something that is no model, is refused with a clear error', () => {
      expect(() => aiSdkModel('gpt-4o')).toThrow(/pass a provider's model object instead/);
      expect(() => aiSdkModel({ specificationVersion: 'v9', doGenerate: () => undefined, provider: 'x', modelId: 'y' })).toThrow(/specification "v9"; supported: v2, v3, v4/);
      expect(() => openaiModel({ maxRetries: -1 })).toThrow(/maxRetries must be an integer >= 0/);
    });

    errorTests(() => openaiFake, (baseURL) => openaiModel({ maxRetries: 1 }, baseURL), OPENAI_KEY);
  });
}

/** Errors sorted into retryable and terminal, retries, the key never in a message, an abort that is an abort. */
function errorTests(fake: () => FakeAnthropic | FakeOpenAI, model: (baseURL?: string) => Model, key: string): void {
  it('400, 401, 403, 404, 422 are terminal at once (one request); the key the API echoes is not in the message', async () => {
    for (const status of [400, 401, 403, 404, 422]) {
      const before = fake().requests.length;
      fake().enqueue({ error: { status, message: `refused ${status}: key ${key} is not allowed` } });
      const error = await step(model(), ask('hi')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ retryable: false, status });
      expect((error as Error).message).toContain(`API error ${status}: refused ${status}`);
      expect((error as Error).message).not.toContain(key);
      expect(fake().requests.length - before).toBe(1);
    }
  });

  it('408, 409, 429, 5xx are retried (maxRetries), then retryable; one that clears up in time succeeds', async () => {
    for (const status of [408, 409, 429, 500, 503]) {
      const before = fake().requests.length;
      fake().enqueue({ error: { status, message: 'busy' } }, { error: { status, message: 'busy' } });
      const error = await step(model(), ask('hi')).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'ModelError', retryable: true, status });
      expect(fake().requests.length - before).toBe(2);
    }
    fake().enqueue({ error: { status: 429, message: 'slow down' } }, { text: 'fine now' });
    expect((await step(model(), ask('hi'))).turn.content).toEqual([{ type: 'text', text: 'fine now' }]);
  });

  it('a lost connection (nobody listening) is retryable', async () => {
    const error = await step(model(await closedPortUrl()), ask('hi')).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ModelError', retryable: true, status: undefined });
    expect((error as Error).message).toMatch(/connection failed/);
  });

  it('an abort ends the step with the abort itself, not a ModelError, and is not retried', async () => {
    const before = fake().requests.length;
    fake().enqueue(() => new Promise<never>(() => undefined));
    const controller = new AbortController();
    const pending = step(model(), ask('hi'), [], controller.signal).catch((e: unknown) => e);
    await waitUntil(() => fake().requests.length > before);
    const reason = new Error('lease lost');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake().requests.length - before).toBe(1);
  });
}

/** A URL on 127.0.0.1 where nothing listens any more. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error('timed out');
}
