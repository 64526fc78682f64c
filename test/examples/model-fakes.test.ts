/**
 * The fake model APIs in examples/fakes/ answer as the real ones do, as
 * the real clients read them: the Anthropic SDK and the AI SDK's Anthropic
 * provider (JSON and streamed), the AI SDK's OpenAI-compatible provider
 * (JSON and streamed), and the Claude Agent SDK's CLI (streamed, with
 * `role: "system"` items). The default script steers by hand: a message
 * naming a tool calls it, a tool result gets "Done: …", anything else is
 * echoed; a queued error is the API's own, retried by the SDK.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { query } from '@anthropic-ai/claude-agent-sdk';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, startFakeOpenAI, type FakeAnthropic, type FakeOpenAI } from '../../examples/fakes/index.js';

const lookup = { name: 'lookup_order', description: 'Look an order up.', input_schema: { type: 'object' as const, properties: { order: { type: 'string' as const } }, required: ['order'] } };
const aiTools = { lookup_order: tool({ description: 'Look an order up.', inputSchema: jsonSchema<{ order: string }>(lookup.input_schema) }) };

describe('the Anthropic fake', () => {
  let fake: FakeAnthropic;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
    client = new Anthropic({ baseURL: fake.url, apiKey: 'sk-ant-test', maxRetries: 1 });
  });
  afterAll(() => fake.close());

  it('echoes, calls the tool a message names with its key=value input, answers a tool result; streamed the same', async () => {
    const echo = await client.messages.create({ model: 'claude-fake', max_tokens: 100, messages: [{ role: 'user', content: 'hello there' }] });
    expect([echo.content, echo.stop_reason]).toEqual([[{ type: 'text', text: 'You said: hello there' }], 'end_turn']);
    expect(echo.usage.input_tokens).toBeGreaterThan(0);

    const ask = { model: 'claude-fake', max_tokens: 100, tools: [lookup], messages: [{ role: 'user' as const, content: 'please lookup_order order=42' }] };
    const call = await client.messages.create(ask);
    expect(call.stop_reason).toBe('tool_use');
    expect(call.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_fake_/), name: 'lookup_order', input: { order: '42' } }]);
    const streamed = await client.messages.stream(ask).finalMessage();
    expect([streamed.content.map((b) => b.type === 'tool_use' && [b.name, b.input]), streamed.stop_reason, streamed.usage.output_tokens]).toEqual([[['lookup_order', { order: '42' }]], 'tool_use', call.usage.output_tokens]);

    const answered = await client.messages.stream({
      ...ask,
      messages: [...ask.messages, { role: 'assistant', content: call.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.content[0]!.type === 'tool_use' ? call.content[0]!.id : '', content: '{"status":"shipped"}' }] }],
    }).finalText();
    expect(answered).toBe('Done: {"status":"shipped"}');
  });

  it('accepts role "system" items in messages, as the Agent SDK CLI sends them', async () => {
    const response = await fetch(`${fake.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: [{ type: 'text', text: 'ctx' }, { type: 'text', text: 'hi' }] }] }),
    });
    expect(((await response.json()) as { content: unknown }).content).toEqual([{ type: 'text', text: 'You said: hi' }]);
  });

  it('a queued 529 is retried by the SDK; a wrong key is a 401 in the API shape', async () => {
    fake.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    const before = fake.requests.length;
    const reply = await client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'again' }] });
    expect(reply.content).toEqual([{ type: 'text', text: 'You said: again' }]);
    expect(fake.requests.length - before).toBe(2);
    const wrong = new Anthropic({ baseURL: fake.url, apiKey: 'sk-ant-wrong', maxRetries: 0 });
    await expect(wrong.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401, error: { type: 'error', error: { type: 'authentication_error' } } });
  });

  it('the AI SDK Anthropic provider reads its tool calls and usage, JSON and streamed', async () => {
    const model = createAnthropic({ baseURL: `${fake.url}/v1`, apiKey: 'sk-ant-test' })('claude-fake');
    const json = await generateText({ model, maxOutputTokens: 100, tools: aiTools, prompt: 'lookup_order {"order": "7"}' });
    expect(json.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['lookup_order', { order: '7' }]]);
    expect(json.usage.outputTokens).toBeGreaterThan(0);
    const stream = streamText({ model, maxOutputTokens: 100, prompt: 'hi' });
    expect(await stream.text).toBe('You said: hi');
    expect((await stream.usage).inputTokens).toBeGreaterThan(0);
  });
  it("the Claude Agent SDK's CLI runs its turns against it: a tool the prompt names is called, its result answered", async () => {
    const home = mkdtempSync(join(tmpdir(), 'vigil-fake-cli-'));
    try {
      writeFileSync(join(home, 'note.txt'), 'the-note');
      const before = fake.requests.length;
      const env = { PATH: process.env.PATH!, HOME: home, CLAUDE_CONFIG_DIR: home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-ant-test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
      const run = query({ prompt: `please Read file_path=${join(home, 'note.txt')}`, options: { cwd: home, env, maxTurns: 3, tools: ['Read'], allowedTools: ['Read'] } });
      let result: unknown;
      for await (const message of run) if (message.type === 'result') result = message;
      expect(result).toMatchObject({ subtype: 'success', result: expect.stringMatching(/^Done: .*the-note/) });
      const turns = fake.requests.slice(before);
      expect(turns.map((r) => [r.path, (r.body as { stream?: boolean }).stream])).toEqual([['/v1/messages', true], ['/v1/messages', true]]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the OpenAI Chat Completions fake', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test' });
  });
  afterAll(() => fake.close());

  it('the AI SDK OpenAI-compatible provider reads text, tool calls and usage, JSON and streamed; a tool result gets "Done"', async () => {
    const model = createOpenAICompatible({ name: 'fake', baseURL: fake.url, apiKey: 'sk-test', includeUsage: true })('fake-model');
    const json = await generateText({ model, tools: aiTools, prompt: 'lookup_order order=42' });
    expect(json.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['lookup_order', { order: '42' }]]);
    expect(json.finishReason).toBe('tool-calls');
    const streamed = streamText({ model, tools: aiTools, prompt: 'lookup_order order=43' });
    expect((await streamed.toolCalls).map((c) => [c.toolName, c.input])).toEqual([['lookup_order', { order: '43' }]]);
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);
    const echo = streamText({ model, prompt: 'hello' });
    expect(await echo.text).toBe('You said: hello');

    const response = await fetch(`${fake.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup_order', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'shipped' }] }),
    });
    expect(((await response.json()) as { choices: { message: unknown }[] }).choices[0]!.message).toEqual({ role: 'assistant', content: 'Done: shipped' });
  });

  it('a wrong key is 401; a queued error is answered in the API shape', async () => {
    const post = (key: string) => fetch(`${fake.url}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }) });
    expect((await post('sk-wrong')).status).toBe(401);
    fake.enqueue({ error: { status: 400, message: 'bad tools' } });
    const refused = await post('sk-test');
    expect([refused.status, await refused.json()]).toEqual([400, { error: { message: 'bad tools', type: 'server_error', param: null, code: null } }]);
  });
});
