/**
 * The Claude model adapter through the REAL SDK, pointed at a local fake
 * Messages API server (fake-messages-server.ts): what goes over the wire,
 * what comes back, and how failures are sorted into retryable and terminal
 * after the SDK's own retries.
 */
import { inspect } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claudeModel, type ClaudeModelOptions } from '../../../src/agent/claude/index.js';
import type { Turn } from '../../../src/agent/conversation.js';
import { ModelError, type ToolSpec } from '../../../src/agent/model.js';
import { VigilError } from '../../../src/errors.js';
import { apiError, messageReply, overloaded, startFakeMessagesServer, type FakeMessagesServer, type RecordedRequest } from './fake-messages-server.js';

const API_KEY = 'sk-ant-test-do-not-leak-7f3a9c';
const MODEL = 'claude-test-model';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function setup(options: Partial<ClaudeModelOptions> = {}) {
  server = await startFakeMessagesServer();
  const model = claudeModel({ model: MODEL, apiKey: API_KEY, baseURL: server.url, ...options });
  return { server, model };
}

const weatherTool: ToolSpec = {
  name: 'get_weather',
  description: 'The current weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const hello: Turn[] = [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }];
const signal = (): AbortSignal => new AbortController().signal;

/**
 * The key a request carried. SDK 1.x sends it as `Authorization: Bearer <key>`
 * (client.ts, apiKeyAuth); the API also takes `x-api-key`, which older SDKs sent.
 */
function credentialOf(request: RecordedRequest): string | undefined {
  const header = request.headers['x-api-key'] ?? request.headers.authorization;
  return typeof header === 'string' ? header.replace(/^Bearer /, '') : undefined;
}

/** The rejection of `promise`, which must reject. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

async function modelError(promise: Promise<unknown>): Promise<ModelError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('a multi-turn tool-use conversation', () => {
  it('sends the model, system, max_tokens, tools and the whole history, and maps both replies back', async () => {
    const { server, model } = await setup({ system: 'You are terse.', maxTokens: 321 });
    server.enqueue(
      messageReply(
        [
          { type: 'text', text: 'Let me look that up.' },
          { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
        ],
        'tool_use',
      ),
      messageReply([{ type: 'text', text: 'It is sunny in Paris.' }], 'end_turn'),
    );

    const history: Turn[] = [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }];
    const first = await model.step(history, [weatherTool], signal());
    expect(first.stopReason).toBe('tool_use');
    expect(first.turn).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look that up.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });

    history.push(first.turn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '21°C, sunny' }] });
    const second = await model.step(history, [weatherTool], signal());
    expect(second).toEqual({ stopReason: 'end_turn', turn: { role: 'assistant', content: [{ type: 'text', text: 'It is sunny in Paris.' }] }, usage: { inputTokens: 12, outputTokens: 7, model: 'claude-fake' } });

    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/v1/messages');
      expect(credentialOf(request)).toBe(API_KEY);
      expect(request.headers['anthropic-version']).toEqual(expect.any(String));
      expect(request.headers['content-type']).toMatch(/^application\/json/);
    }
    const expectedTools = [
      {
        name: 'get_weather',
        description: 'The current weather in a city.',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    expect(server.requests[0]!.body).toEqual({
      model: MODEL,
      system: 'You are terse.',
      max_tokens: 321,
      tools: expectedTools,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }],
    });
    expect(server.requests[1]!.body).toEqual({
      model: MODEL,
      system: 'You are terse.',
      max_tokens: 321,
      tools: expectedTools,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look that up.' },
            { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '21°C, sunny' }] },
      ],
    });
    // The key travels in its one header only: not in the body, not in any other header.
    for (const request of server.requests) {
      expect(request.raw).not.toContain(API_KEY);
      const others = Object.entries(request.headers).filter(([name]) => name !== 'x-api-key' && name !== 'authorization');
      expect(JSON.stringify(others)).not.toContain(API_KEY);
    }
  });

  it('defaults max_tokens to 1024, leaves out system and an empty tool list, and keeps is_error on a tool result', async () => {
    const { server, model } = await setup();
    server.enqueue(messageReply([{ type: 'text', text: 'Understood.' }]));
    const history: Turn[] = [
      { role: 'user', content: [{ type: 'text', text: 'refund order 42' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_9', name: 'refund', input: { order: 42 } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'declined by the user', is_error: true }] },
    ];
    await model.step(history, [], signal());
    expect(server.requests[0]!.body).toEqual({ model: MODEL, max_tokens: 1024, messages: history });
    expect(server.requests[0]!.body).not.toHaveProperty('system');
    expect(server.requests[0]!.body).not.toHaveProperty('tools');
  });

  it('keeps only text and tool_use blocks (thinking and server-tool blocks are dropped) and passes other stop reasons through', async () => {
    const { server, model } = await setup();
    server.enqueue(
      messageReply(
        [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'redacted_thinking', data: 'xyz' },
          { type: 'text', text: 'Partial answer' },
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
        ],
        'max_tokens',
      ),
    );
    const reply = await model.step(hello, [], signal());
    expect(reply).toEqual({ stopReason: 'max_tokens', turn: { role: 'assistant', content: [{ type: 'text', text: 'Partial answer' }] }, usage: { inputTokens: 12, outputTokens: 7, model: 'claude-fake' } });
  });

  it("reports the step's usage, prompt-cache reads and writes included, in Vigil's shape", async () => {
    const { server, model } = await setup();
    server.enqueue(messageReply([{ type: 'text', text: 'Cached.' }], 'end_turn', { usage: { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 900, cache_creation_input_tokens: 40 } }));
    const reply = await model.step(hello, [], signal());
    expect(reply.usage).toEqual({ inputTokens: 5, outputTokens: 3, cacheReadTokens: 900, cacheWriteTokens: 40, model: 'claude-fake' });
    server.enqueue(messageReply([{ type: 'text', text: 'No counts.' }], 'end_turn', { usage: null }));
    expect((await model.step(hello, [], signal())).usage).toBeUndefined();
  });

  it('a malformed answer (no content array) is a terminal ModelError', async () => {
    const { server, model } = await setup();
    server.enqueue({ status: 200, body: { type: 'message', role: 'assistant', stop_reason: 'end_turn' } });
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/malformed.*content/);
  });

  it('reads the key from ANTHROPIC_API_KEY when none is passed', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-from-env');
    server = await startFakeMessagesServer();
    const model = claudeModel({ model: MODEL, baseURL: server.url });
    server.enqueue(messageReply([{ type: 'text', text: 'hi' }]));
    await model.step(hello, [], signal());
    expect(credentialOf(server.requests[0]!)).toBe('sk-ant-from-env');
  });
});

describe('retries (the SDK\'s) and retryable failures', () => {
  it('a 529 overloaded once, then a success: step succeeds after 2 requests', async () => {
    const { server, model } = await setup();
    server.enqueue(overloaded(), messageReply([{ type: 'text', text: 'made it' }]));
    const reply = await model.step(hello, [], signal());
    expect(reply.turn.content).toEqual([{ type: 'text', text: 'made it' }]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers['x-stainless-retry-count']).toBe('1');
    expect(server.requests[1]!.body).toEqual(server.requests[0]!.body);
  });

  it('529 on every attempt: a retryable ModelError after maxRetries + 1 requests (default maxRetries 2)', async () => {
    const { server, model } = await setup();
    server.setFallback(overloaded());
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(529);
    expect(error.message).toContain('overloaded_error');
    expect(error.message).toContain('Overloaded');
    expect(server.requests).toHaveLength(3);
  });

  it('maxRetries is honoured: 1 → 2 requests, 0 → 1 request', async () => {
    const { server, model } = await setup({ maxRetries: 1 });
    server.setFallback(overloaded());
    expect((await modelError(model.step(hello, [], signal()))).retryable).toBe(true);
    expect(server.requests).toHaveLength(2);

    const once = claudeModel({ model: MODEL, apiKey: API_KEY, baseURL: server.url, maxRetries: 0 });
    expect((await modelError(once.step(hello, [], signal()))).retryable).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  it.each([
    [429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'],
    [500, 'api_error', 'Internal server error'],
    [503, 'api_error', 'Service unavailable'],
    [529, 'overloaded_error', 'Overloaded'],
  ])('%i %s is retryable after maxRetries + 1 requests', async (status, type, message) => {
    const { server, model } = await setup({ maxRetries: 1 });
    server.setFallback(apiError(status, type, message));
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(true);
    expect(error.status).toBe(status);
    expect(error.message).toContain(type);
    expect(error.message).toContain(message);
    expect(server.requests).toHaveLength(2);
  });

  it('a 429 with retry-after: 0 is retried and then succeeds', async () => {
    const { server, model } = await setup();
    server.enqueue(
      { status: 429, body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, headers: { 'retry-after': '0', 'retry-after-ms': '1' } },
      messageReply([{ type: 'text', text: 'ok' }]),
    );
    expect((await model.step(hello, [], signal())).stopReason).toBe('end_turn');
    expect(server.requests).toHaveLength(2);
  });

  it('connection refused (the server is gone): retryable, after the SDK retried', async () => {
    server = await startFakeMessagesServer();
    const url = server.url;
    await server.close();
    const model = claudeModel({ model: MODEL, apiKey: API_KEY, baseURL: url, maxRetries: 1 });
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(true);
    expect(error.status).toBeUndefined();
    expect(error.message).toMatch(/connection failed/i);
    expect(error.message).not.toContain(API_KEY);
  });

  it('a request that times out is retryable', async () => {
    const { server, model } = await setup({ timeoutMs: 150, maxRetries: 1 });
    server.setFallback({ status: 200, hang: true });
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/timed out/i);
    expect(server.requests).toHaveLength(2);
  });
});

describe('terminal failures', () => {
  it('a 400 invalid_request_error: terminal after exactly 1 request, naming the error', async () => {
    const { server, model } = await setup();
    server.enqueue(apiError(400, 'invalid_request_error', 'messages.1: tool_use ids must be unique'));
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(400);
    expect(error.message).toContain('400');
    expect(error.message).toContain('invalid_request_error');
    expect(error.message).toContain('messages.1: tool_use ids must be unique');
    expect(error.message).toMatch(/request-id req_fake_\d+/);
    expect(server.requests).toHaveLength(1);
    expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
  });

  it.each([
    [401, 'authentication_error', 'invalid x-api-key'],
    [403, 'permission_error', 'Your API key does not have permission to use the specified resource.'],
    [404, 'not_found_error', 'model: claude-test-model'],
    [413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
    [422, 'invalid_request_error', 'unprocessable'],
  ])('%i %s: terminal after exactly 1 request', async (status, type, message) => {
    const { server, model } = await setup();
    server.setFallback(apiError(status, type, message));
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(false);
    expect(error.status).toBe(status);
    expect(error.message).toContain(type);
    expect(error.message).toContain(message);
    expect(server.requests).toHaveLength(1);
    expect(inspect(error, { depth: 10 })).not.toContain(API_KEY);
  });

  it('an error body that echoes the key has it redacted from the message', async () => {
    const { server, model } = await setup();
    server.enqueue(apiError(401, 'authentication_error', `invalid x-api-key ${API_KEY}`));
    const error = await modelError(model.step(hello, [], signal()));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('authentication_error');
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain(API_KEY);
  });
});

describe('abort', () => {
  it('aborting while the call is in flight cancels it with the signal\'s reason, not a ModelError', async () => {
    const { server, model } = await setup();
    server.setFallback({ status: 200, hang: true });
    const controller = new AbortController();
    const reason = new Error('lease lost');
    const step = model.step(hello, [], controller.signal);
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    controller.abort(reason);
    expect(await failure(step)).toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { server, model } = await setup();
    server.setFallback(messageReply([{ type: 'text', text: 'never' }]));
    const controller = new AbortController();
    controller.abort();
    const error = await failure(model.step(hello, [], controller.signal));
    expect(error).toBe(controller.signal.reason);
    expect((error as Error).name).toBe('AbortError');
    expect(server.requests).toHaveLength(0);
  });

  it('aborting during the SDK\'s retry backoff stops at once, without another request', async () => {
    const { server, model } = await setup();
    server.setFallback(apiError(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '60000' }));
    const controller = new AbortController();
    const step = model.step(hello, [], controller.signal);
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    const started = Date.now();
    controller.abort(new Error('shutdown'));
    expect(((await failure(step)) as Error).message).toBe('shutdown');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });
});

describe('options', () => {
  const base = { model: MODEL, apiKey: API_KEY };
  it.each([
    ['no model', { apiKey: API_KEY }, /model must be a non-empty string/],
    ['an empty model', { ...base, model: '  ' }, /model must be a non-empty string/],
    ['maxTokens 0', { ...base, maxTokens: 0 }, /maxTokens must be a positive integer/],
    ['negative maxTokens', { ...base, maxTokens: -5 }, /maxTokens must be a positive integer/],
    ['fractional maxTokens', { ...base, maxTokens: 1.5 }, /maxTokens must be a positive integer/],
    ['negative maxRetries', { ...base, maxRetries: -1 }, /maxRetries must be an integer >= 0/],
    ['timeoutMs 0', { ...base, timeoutMs: 0 }, /timeoutMs must be a positive integer/],
    ['a relative baseURL', { ...base, baseURL: '/v1' }, /baseURL must be an absolute URL/],
    ['a non-string system', { ...base, system: 42 }, /system must be a string/],
  ])('%s is a VigilError invalid_options', (_what, options, message) => {
    let thrown: unknown;
    try {
      claudeModel(options as unknown as ClaudeModelOptions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(VigilError);
    expect((thrown as VigilError).code).toBe('invalid_options');
    expect((thrown as VigilError).message).toMatch(message);
  });

  it('no API key (neither passed nor in the environment) fails at construction', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', undefined);
    expect(() => claudeModel({ model: MODEL })).toThrow(expect.objectContaining({ code: 'invalid_options', message: expect.stringMatching(/ANTHROPIC_API_KEY/) }));
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    expect(() => claudeModel({ model: MODEL })).toThrow(VigilError);
  });

  it('a client together with apiKey or baseURL is refused', () => {
    const client = new Anthropic({ apiKey: API_KEY, baseURL: 'http://127.0.0.1:1' });
    expect(() => claudeModel({ model: MODEL, client, apiKey: API_KEY })).toThrow(/either client or apiKey\/baseURL/);
    expect(() => claudeModel({ model: MODEL, client, baseURL: 'http://127.0.0.1:1' })).toThrow(/either client or apiKey\/baseURL/);
  });

  it('an injected client needs no key of ours, and our maxRetries still applies per call', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', undefined);
    server = await startFakeMessagesServer();
    const client = new Anthropic({ apiKey: 'sk-ant-client-key', baseURL: server.url, maxRetries: 5 });
    const model = claudeModel({ model: MODEL, client, maxRetries: 0 });
    server.enqueue(messageReply([{ type: 'text', text: 'via client' }]));
    expect((await model.step(hello, [], signal())).turn.content).toEqual([{ type: 'text', text: 'via client' }]);
    expect(credentialOf(server.requests[0]!)).toBe('sk-ant-client-key');

    server.setFallback(overloaded());
    expect((await modelError(model.step(hello, [], signal()))).retryable).toBe(true);
    expect(server.requests).toHaveLength(2); // maxRetries 0, not the client's 5
  });

  it('a history that is empty or does not end with a user turn is refused before any request', async () => {
    const { server, model } = await setup();
    await expect(model.step([], [], signal())).rejects.toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    const endsWithAssistant: Turn[] = [...hello, { role: 'assistant', content: [{ type: 'text', text: 'hi' }] }];
    await expect(model.step(endsWithAssistant, [], signal())).rejects.toThrow(/must end with a user turn/);
    expect(server.requests).toHaveLength(0);
  });

  it('the model names itself after the model id', async () => {
    const { model } = await setup();
    expect(model.name).toBe(`claude:${MODEL}`);
  });
});
