/**
 * What the providers' wire formats in model-suite.ts do not reach: a model
 * object of the older v2 specification (ai 5's providers, which ai 6 still
 * runs: a string finish reason, flat usage counts), and reply parts the
 * adapter must drop or refuse. The model here is a hand-written object of
 * the specification's shape, as a provider package would hand over.
 */
import { describe, expect, it } from 'vitest';
import { aiSdkModel } from '../../../src/adapters/ai-sdk/index.js';
import type { Turn } from '../../../src/agent/conversation.js';
import { ModelError } from '../../../src/agent/model.js';
import { VigilError } from '../../../src/errors.js';

function specModel(specificationVersion: string, result: unknown, seen: unknown[] = []) {
  return { specificationVersion, provider: 'hand', modelId: 'made', doGenerate: async (options: unknown) => (seen.push(options), result) };
}
const hi: Turn[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
const step = (model: ReturnType<typeof aiSdkModel>, history: Turn[] = hi) => model.step(history, [], new AbortController().signal);

describe('aiSdkModel on reply shapes', () => {
  it('v2: a string finish reason and flat usage (inputTokens includes cachedInputTokens)', async () => {
    const model = aiSdkModel(specModel('v2', { content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"order":"1"}' }], finishReason: 'tool-calls', usage: { inputTokens: 50, outputTokens: 9, cachedInputTokens: 20 } }));
    expect(await step(model)).toEqual({
      turn: { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'lookup', input: { order: '1' } }] },
      stopReason: 'tool_use',
      usage: { inputTokens: 30, outputTokens: 9, cacheReadTokens: 20, model: 'made' },
    });
  });

  it('v3/v4: noCache missing is total minus the cache; no counts is no usage; finish reasons in the Messages API\'s words', async () => {
    const reply = (finishReason: unknown, usage: unknown) => step(aiSdkModel(specModel('v4', { content: [{ type: 'text', text: 'ok' }], finishReason, usage })));
    const nested = { inputTokens: { total: 100, noCache: undefined, cacheRead: 30, cacheWrite: 10 }, outputTokens: { total: 5 } };
    expect((await reply({ unified: 'length', raw: 'max_tokens' }, nested)).usage).toEqual({ inputTokens: 60, outputTokens: 5, cacheReadTokens: 30, cacheWriteTokens: 10, model: 'made' });
    expect(await reply({ unified: 'length', raw: 'max_tokens' }, nested)).toMatchObject({ stopReason: 'max_tokens' });
    expect((await reply({ unified: 'stop', raw: 'stop_sequence' }, undefined)).stopReason).toBe('stop_sequence');
    expect((await reply({ unified: 'content-filter', raw: 'x' }, undefined)).stopReason).toBe('refusal');
    expect((await reply({ unified: 'other', raw: 'x' }, undefined)).stopReason).toBe('other');
    expect(await reply({ unified: 'stop', raw: 'end_turn' }, { inputTokens: { total: undefined }, outputTokens: { total: undefined } })).toEqual({ turn: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, stopReason: 'end_turn' });
  });

  it('reasoning, sources and calls the provider ran itself are dropped; a call without arguments has {} as input', async () => {
    const model = aiSdkModel(specModel('v3', {
      content: [
        { type: 'reasoning', text: 'thinking…' },
        { type: 'tool-call', toolCallId: 's1', toolName: 'web_search', input: '{}', providerExecuted: true },
        { type: 'tool-result', toolCallId: 's1', toolName: 'web_search', result: {} },
        { type: 'source', sourceType: 'url', id: 'x', url: 'https://example.com' },
        { type: 'text', text: 'Found it.' },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'now', input: '' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    }));
    expect((await step(model)).turn.content).toEqual([{ type: 'text', text: 'Found it.' }, { type: 'tool_use', id: 'c2', name: 'now', input: {} }]);
  });

  it('arguments that are no JSON object are a retryable ModelError (another sample may do); a reply without content a terminal one', async () => {
    const bad = aiSdkModel(specModel('v3', { content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'lookup', input: '{"order":' }], finishReason: { unified: 'tool-calls' } }), { maxRetries: 0 });
    await expect(step(bad)).rejects.toMatchObject({ name: 'ModelError', retryable: true, message: expect.stringContaining('tool call lookup has arguments that are not a JSON object') });
    const empty = aiSdkModel(specModel('v3', { finishReason: 'stop' }));
    await expect(step(empty)).rejects.toMatchObject({ name: 'ModelError', retryable: false });
    await expect(step(empty)).rejects.toBeInstanceOf(ModelError);
  });

  it('a history that does not end with a user turn, or a result for a call nobody made, is refused before any call', async () => {
    const seen: unknown[] = [];
    const model = aiSdkModel(specModel('v3', { content: [], finishReason: 'stop' }, seen));
    await expect(step(model, [])).rejects.toThrow(VigilError);
    await expect(step(model, [...hi, { role: 'assistant', content: [{ type: 'text', text: 'x' }] }])).rejects.toThrow(/must end with a user turn/);
    await expect(step(model, [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'ghost', content: '1' }] }])).rejects.toThrow(/answers ghost, which no earlier assistant turn called/);
    expect(seen).toEqual([]);
  });

  it('an error that is no API error (no key, an unsupported prompt) is terminal, named, and masks anything key-like', async () => {
    const failing = { specificationVersion: 'v3', provider: 'hand', modelId: 'made', doGenerate: async () => Promise.reject(Object.assign(new Error('API key is missing: sk-live-abcdefghijklmnop0123 was rejected'), { name: 'AI_LoadAPIKeyError' })) };
    const error = await step(aiSdkModel(failing)).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ModelError', retryable: false });
    expect((error as Error).message).toBe('ai-sdk:hand:made: call failed (AI_LoadAPIKeyError): API key is missing: [redacted] was rejected');
  });
});
