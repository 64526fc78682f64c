/**
 * Any AI SDK language model as a Vigil Model: one `doGenerate` call per
 * step. The spec method is called directly, not `generateText`, so the
 * adapter needs nothing from the `ai` package at run time and takes a
 * model object from either `ai` major (v3 models from ai 6's providers,
 * v4 from ai 7's, v2 from ai 5's): `generateText` of one major refuses
 * the other's models, and it would run its own tool loop, where Vigil's
 * (toolAgent) must decide and record every call.
 *
 * Retries: a provider's doGenerate does not retry (generateText does), so
 * a step tries a retryable failure again itself, `maxRetries` times
 * (default 2, as the AI SDK), waiting what the API asks (retry-after-ms,
 * retry-after, at most 30 s) or 0.5 s, 1 s, 2 s... What is left becomes a
 * ModelError: retryable ones leave the run's events for a later attempt,
 * terminal ones send them dead at once.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { VigilError } from '../../errors.js';
import type { Turn } from '../../agent/conversation.js';
import type { Model, ModelReply, ToolSpec } from '../../agent/model.js';
import { retryAfterMs, toModelError } from './errors.js';
import { toFunctionTools, toPrompt } from './prompt.js';
import { fromResult } from './reply.js';
import { SPEC_VERSIONS, type CallOptions, type SpecLanguageModel } from './spec.js';

export interface AiSdkModelOptions {
  /** The system prompt, sent before the conversation. */
  system?: string;
  /** The most tokens one reply may use. Default: the provider's. */
  maxOutputTokens?: number;
  temperature?: number;
  /** Passed to the provider as is (e.g. `{ anthropic: { cacheControl: … } }`). */
  providerOptions?: Record<string, Record<string, unknown>>;
  /** Extra HTTP headers for every call. */
  headers?: Record<string, string>;
  /** How often one step tries a retryable failure again. Default 2. */
  maxRetries?: number;
}

const DEFAULT_MAX_RETRIES = 2;
const MAX_WAIT_MS = 30_000;

/**
 * `languageModel` is what a provider returns (`anthropic('claude-…')`,
 * `openai('gpt-…')`, `createOpenAICompatible({…})('llama3')`).
 */
export function aiSdkModel(languageModel: unknown, options: AiSdkModelOptions = {}): Model {
  const model = checkModel(languageModel);
  const settings = checkOptions(options);
  const name = `ai-sdk:${model.provider}:${model.modelId}`;

  return {
    name,
    async step(history: readonly Turn[], specs: readonly ToolSpec[], signal: AbortSignal): Promise<ModelReply> {
      const call: CallOptions = { prompt: toPrompt(history, settings.system), abortSignal: signal };
      if (specs.length > 0) {
        call.tools = toFunctionTools(specs);
        call.toolChoice = { type: 'auto' };
      }
      if (settings.maxOutputTokens !== undefined) call.maxOutputTokens = settings.maxOutputTokens;
      if (settings.temperature !== undefined) call.temperature = settings.temperature;
      if (settings.providerOptions !== undefined) call.providerOptions = settings.providerOptions;
      if (settings.headers !== undefined) call.headers = settings.headers;

      for (let attempt = 0; ; attempt++) {
        signal.throwIfAborted();
        try {
          return fromResult(await model.doGenerate(call), name, model.modelId);
        } catch (error) {
          // The run was aborted (lease lost, timeout, shutdown): that is the outcome, not a model failure.
          signal.throwIfAborted();
          const failure = toModelError(error, name);
          if (!failure.retryable || attempt >= settings.maxRetries) throw failure;
          // An abort while waiting ends the step with the abort itself.
          await delay(Math.min(retryAfterMs(error) ?? 500 * 2 ** attempt, MAX_WAIT_MS), undefined, { signal }).catch(() => signal.throwIfAborted());
        }
      }
    },
  };
}

function checkModel(value: unknown): SpecLanguageModel {
  const fail = (message: string): never => {
    throw new VigilError('invalid_options', `aiSdkModel: ${message}`);
  };
  if (typeof value === 'string') return fail(`got the model id ${JSON.stringify(value)}; pass a provider's model object instead, e.g. anthropic(${JSON.stringify(value)}) from @ai-sdk/anthropic`);
  const model = value as Partial<SpecLanguageModel> | null;
  if (typeof model !== 'object' || model === null || typeof model.doGenerate !== 'function') return fail('needs an AI SDK language model (what a provider such as anthropic("…") or openai("…") returns)');
  if (!SPEC_VERSIONS.includes(String(model.specificationVersion))) {
    return fail(`the model speaks specification ${JSON.stringify(model.specificationVersion)}; supported: ${SPEC_VERSIONS.join(', ')} (providers for ai 5, 6 and 7)`);
  }
  return model as SpecLanguageModel;
}

type Settings = Omit<AiSdkModelOptions, 'maxRetries'> & { maxRetries: number };

function checkOptions(options: AiSdkModelOptions): Settings {
  const fail = (message: string): never => {
    throw new VigilError('invalid_options', `aiSdkModel: ${message}`);
  };
  if (typeof options !== 'object' || options === null) return fail('options must be an object');
  const { system, maxOutputTokens, temperature, providerOptions, headers, maxRetries = DEFAULT_MAX_RETRIES } = options;
  if (system !== undefined && typeof system !== 'string') fail('system must be a string');
  if (maxOutputTokens !== undefined && (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens <= 0)) fail(`maxOutputTokens must be a positive integer, got ${String(maxOutputTokens)}`);
  if (temperature !== undefined && (typeof temperature !== 'number' || !Number.isFinite(temperature))) fail('temperature must be a number');
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) fail(`maxRetries must be an integer >= 0, got ${String(maxRetries)}`);
  if (providerOptions !== undefined && (typeof providerOptions !== 'object' || providerOptions === null)) fail('providerOptions must be an object');
  if (headers !== undefined && (typeof headers !== 'object' || headers === null)) fail('headers must be an object');
  return { system, maxOutputTokens, temperature, providerOptions, headers, maxRetries };
}
