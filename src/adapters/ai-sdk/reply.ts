/**
 * A provider's reply (doGenerate's result) as Vigil's: the text and tool
 * calls as an AssistantTurn, the finish reason as a StopReason in the
 * Messages API's words, the usage in Vigil's one shape. Reasoning, files,
 * sources and calls the provider ran itself (providerExecuted) are dropped:
 * the session keeps only what the tool loop understands, as the Claude
 * adapter does.
 */
import type { AssistantTurn, TextBlock, ToolUseBlock } from '../../agent/conversation.js';
import { ModelError, type ModelReply, type StopReason } from '../../agent/model.js';
import type { Usage } from '../../agent/usage.js';
import type { GenerateResult } from './spec.js';

export function fromResult(result: GenerateResult, model: string, modelId: string): ModelReply {
  const malformed = (what: string, retryable = false): never => {
    throw new ModelError(`${model} answered with a malformed reply: ${what}`, retryable);
  };
  if (typeof result !== 'object' || result === null || !Array.isArray(result.content)) return malformed('content is not an array');
  const blocks: (TextBlock | ToolUseBlock)[] = [];
  for (const part of result.content) {
    if (typeof part !== 'object' || part === null) return malformed('a content part is not an object');
    if (part.type === 'text') {
      if (typeof part.text !== 'string') return malformed('a text part has no text');
      blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'tool-call' && part.providerExecuted !== true) {
      if (typeof part.toolCallId !== 'string' || typeof part.toolName !== 'string') return malformed('a tool call has no id or name');
      const input = parseInput(part.input);
      // Arguments that are no JSON object are the model's sampling, not the request's fault: another try may do.
      if (input === null) return malformed(`tool call ${part.toolName} has arguments that are not a JSON object`, true);
      blocks.push({ type: 'tool_use', id: part.toolCallId, name: part.toolName, input });
    }
  }
  const turn: AssistantTurn = { role: 'assistant', content: blocks };
  const usage = usageOf(result.usage);
  // The model that answered (the response's id, else the one asked): what the step is priced by (agent/prices.ts).
  const answered = result.response?.modelId;
  if (usage !== undefined) usage.model = typeof answered === 'string' && answered !== '' ? answered : modelId;
  const stopReason = stopReasonOf(result.finishReason);
  return usage === undefined ? { turn, stopReason } : { turn, stopReason, usage };
}

/** The arguments as an object: JSON text (the spec's), or already an object; '' is {} (a call without arguments). */
function parseInput(input: unknown): Record<string, unknown> | null {
  let value = input;
  if (typeof input === 'string') {
    if (input.trim() === '') return {};
    try {
      value = JSON.parse(input) as unknown;
    } catch {
      return null;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

const UNIFIED: Record<string, StopReason> = { stop: 'end_turn', 'tool-calls': 'tool_use', length: 'max_tokens', 'content-filter': 'refusal' };

/** v2's string or v3/v4's `{ unified, raw }`, in the words the tool loop and the Claude adapter use. */
export function stopReasonOf(finishReason: unknown): StopReason {
  const value = finishReason as { unified?: unknown; raw?: unknown } | string | null | undefined;
  const unified = typeof value === 'string' ? value : value?.unified;
  // Anthropic's stop_sequence is 'stop' unified; the raw reason says which.
  if (unified === 'stop' && typeof value === 'object' && value?.raw === 'stop_sequence') return 'stop_sequence';
  if (typeof unified !== 'string') return 'unknown';
  return UNIFIED[unified] ?? unified;
}

const count = (n: unknown): number | undefined => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);

/**
 * Vigil's usage counts input the way the Messages API does: `inputTokens`
 * is the input the cache did not serve, so input + cache reads + cache
 * writes is the whole prompt, for every adapter alike. v3 and v4 nest the
 * counts (`inputTokens.noCache`, `.cacheRead`, `.cacheWrite`); v2 has a flat
 * `inputTokens` that includes `cachedInputTokens`. None when the provider
 * did not count.
 */
export function usageOf(value: unknown): Usage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const given = value as { inputTokens?: unknown; outputTokens?: unknown; cachedInputTokens?: unknown };
  let input: number | undefined;
  let output: number | undefined;
  let cacheRead: number | undefined;
  let cacheWrite: number | undefined;
  if (typeof given.inputTokens === 'object' && given.inputTokens !== null) {
    const tokens = given.inputTokens as { total?: unknown; noCache?: unknown; cacheRead?: unknown; cacheWrite?: unknown };
    cacheRead = count(tokens.cacheRead);
    cacheWrite = count(tokens.cacheWrite);
    const total = count(tokens.total);
    input = count(tokens.noCache) ?? (total === undefined ? undefined : Math.max(0, total - (cacheRead ?? 0) - (cacheWrite ?? 0)));
    output = count((given.outputTokens as { total?: unknown } | null | undefined)?.total);
  } else {
    cacheRead = count(given.cachedInputTokens);
    const total = count(given.inputTokens);
    input = total === undefined ? undefined : Math.max(0, total - (cacheRead ?? 0));
    output = count(given.outputTokens);
  }
  if (input === undefined || output === undefined) return undefined;
  const usage: Usage = { inputTokens: input, outputTokens: output };
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  return usage;
}
