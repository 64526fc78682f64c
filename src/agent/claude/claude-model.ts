/**
 * The Claude adapter's model: one Messages API call per step, through the
 * official SDK. The conversation is already in the API's own shape
 * (conversation.ts), so a step sends the history as is and maps the reply's
 * content blocks back. Retries are the SDK's: it retries 408/409/429/5xx
 * (529 overloaded included) and lost connections with exponential backoff,
 * honouring `retry-after`/`retry-after-ms`. What is left after its retries
 * becomes a ModelError, sorted into retryable (the run's events are tried
 * again later) and terminal (they go dead at once).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { VigilError } from '../../errors.js';
import type { AssistantTurn, TextBlock, ToolUseBlock, Turn } from '../conversation.js';
import { ModelError, type Model, type ModelReply, type ToolSpec } from '../model.js';
import type { Usage } from '../usage.js';
import { DEFAULT_CLAUDE_MODEL } from './default-model.js';
import { sdkLogger, withSdkWarnings } from './sdk-warnings.js';

export interface ClaudeModelOptions {
  /** The model id, e.g. DEFAULT_CLAUDE_MODEL. */
  model: string;
  system?: string;
  /** The most tokens one reply may use. Default 1024. */
  maxTokens?: number;
  /** Default `process.env.ANTHROPIC_API_KEY`. Not allowed together with `client`. */
  apiKey?: string;
  /** Another endpoint speaking the Messages API (a proxy, a test server). Not allowed together with `client`. */
  baseURL?: string;
  /** How often the SDK retries a retryable failure before step() gives up. Default 2. */
  maxRetries?: number;
  /** Timeout of one attempt, in milliseconds. Default: the SDK's (10 minutes for small maxTokens). */
  timeoutMs?: number;
  /** A ready client (its own key, base URL and defaults); maxRetries and timeoutMs, when given, still apply per call. */
  client?: Anthropic;
}

const DEFAULT_MAX_TOKENS = 1024;
const DEFAULT_MAX_RETRIES = 2;

type Sdk = typeof Anthropic;
let sdk: Promise<Sdk> | undefined;

/** The SDK, imported at the first call: a service that never calls Claude never loads it. */
function loadSdk(): Promise<Sdk> {
  sdk ??= import('@anthropic-ai/sdk').then((module) => module.default);
  return sdk;
}

export function claudeModel(options: ClaudeModelOptions): Model {
  const settings = checkOptions(options);
  const { model, system, maxTokens, client, redact } = settings;
  // With an injected client, its own retry and timeout defaults hold unless the caller set ours.
  const perCall: { maxRetries?: number; timeout?: number } = {};
  if (options.client !== undefined) {
    if (options.maxRetries !== undefined) perCall.maxRetries = options.maxRetries;
    if (options.timeoutMs !== undefined) perCall.timeout = options.timeoutMs;
  }

  return {
    name: `claude:${model}`,
    async step(history: readonly Turn[], tools: readonly ToolSpec[], signal: AbortSignal): Promise<ModelReply> {
      checkHistory(history);
      signal.throwIfAborted();
      const params: Anthropic.MessageCreateParamsNonStreaming = {
        model,
        max_tokens: maxTokens,
        messages: history.map(toMessageParam),
      };
      if (system !== undefined) params.system = system;
      if (tools.length > 0) params.tools = tools.map(toApiTool);

      const Sdk = await loadSdk();
      let message: Anthropic.Message;
      try {
        message = await withSdkWarnings(() => client(Sdk).messages.create(params, { ...perCall, signal }));
      } catch (error) {
        // The run was aborted (lease lost, timeout, shutdown): that is the outcome, not a model failure.
        signal.throwIfAborted();
        throw toModelError(Sdk, error, redact);
      }
      return fromMessage(message, redact);
    },
  };
}

interface Settings {
  model: string;
  system: string | undefined;
  maxTokens: number;
  /** The client given, or one built (once) with the SDK when it is loaded. */
  client: (Sdk: Sdk) => Anthropic;
  /** Removes the API key from any text we put in an error. */
  redact: (text: string) => string;
}

function checkOptions(options: ClaudeModelOptions): Settings {
  const fail = (message: string): never => {
    throw new VigilError('invalid_options', `claudeModel: ${message}`);
  };
  if (typeof options !== 'object' || options === null) return fail('needs an options object with at least { model }');
  const { model, system, maxTokens = DEFAULT_MAX_TOKENS, apiKey, baseURL, maxRetries, timeoutMs, client } = options;
  if (typeof model !== 'string' || model.trim() === '') fail(`model must be a non-empty string (e.g. "${DEFAULT_CLAUDE_MODEL}")`);
  if (system !== undefined && typeof system !== 'string') fail('system must be a string');
  if (!Number.isSafeInteger(maxTokens) || maxTokens <= 0) fail(`maxTokens must be a positive integer, got ${String(maxTokens)}`);
  if (maxRetries !== undefined && (!Number.isSafeInteger(maxRetries) || maxRetries < 0)) {
    fail(`maxRetries must be an integer >= 0, got ${String(maxRetries)}`);
  }
  if (timeoutMs !== undefined && (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)) {
    fail(`timeoutMs must be a positive integer, got ${String(timeoutMs)}`);
  }
  if (baseURL !== undefined && (typeof baseURL !== 'string' || !URL.canParse(baseURL))) fail('baseURL must be an absolute URL');
  if (apiKey !== undefined && typeof apiKey !== 'string') fail('apiKey must be a string');

  if (client !== undefined) {
    if (typeof client !== 'object' || client === null || typeof client.messages?.create !== 'function') {
      fail('client must be an Anthropic client');
    }
    if (apiKey !== undefined || baseURL !== undefined) fail('pass either client or apiKey/baseURL, not both (the client has its own)');
    return { model, system, maxTokens, client: () => client, redact: redactor(typeof client.apiKey === 'string' ? client.apiKey : undefined) };
  }

  const key = apiKey ?? process.env.ANTHROPIC_API_KEY;
  if (key === undefined || key.trim() === '') fail('no API key: set ANTHROPIC_API_KEY or pass apiKey (or a client)');
  const resolvedKey = key as string;
  let built: Anthropic | undefined;
  const build = (Sdk: Sdk): Anthropic =>
    (built ??= new Sdk({
      apiKey: resolvedKey,
      ...(baseURL !== undefined ? { baseURL } : {}),
      maxRetries: maxRetries ?? DEFAULT_MAX_RETRIES,
      logger: sdkLogger,
      ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
    }));
  return { model, system, maxTokens, client: build, redact: redactor(resolvedKey) };
}

function redactor(key: string | undefined): (text: string) => string {
  if (key === undefined || key === '') return (text) => text;
  return (text) => text.replaceAll(key, '[redacted]');
}

function checkHistory(history: readonly Turn[]): void {
  if (!Array.isArray(history) || history.length === 0) {
    throw new VigilError('invalid_argument', 'claudeModel.step: the history is empty; it must end with a user turn');
  }
  if (history[history.length - 1]!.role !== 'user') {
    throw new VigilError('invalid_argument', 'claudeModel.step: the history must end with a user turn');
  }
}

// Our blocks are the API's own (see conversation.ts): copied, not translated, so nothing else rides along.
function toMessageParam(turn: Turn): Anthropic.MessageParam {
  if (turn.role === 'assistant') {
    return {
      role: 'assistant',
      content: turn.content.map((block): Anthropic.TextBlockParam | Anthropic.ToolUseBlockParam =>
        block.type === 'text'
          ? { type: 'text', text: block.text }
          : { type: 'tool_use', id: block.id, name: block.name, input: block.input },
      ),
    };
  }
  return {
    role: 'user',
    content: turn.content.map((block): Anthropic.TextBlockParam | Anthropic.ToolResultBlockParam => {
      if (block.type === 'text') return { type: 'text', text: block.text };
      const result: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: block.tool_use_id, content: block.content };
      if (block.is_error !== undefined) result.is_error = block.is_error;
      return result;
    }),
  };
}

function toApiTool(tool: ToolSpec): Anthropic.Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
}

/**
 * The reply as our AssistantTurn. Only text and tool_use blocks are kept:
 * thinking, redacted_thinking and server-tool blocks (web search, code
 * execution, ...) are dropped, since this adapter turns on none of those
 * features and the session stores only what the tool loop understands.
 */
function fromMessage(message: unknown, redact: (text: string) => string): ModelReply {
  const malformed = (what: string): never => {
    throw new ModelError(redact(`Claude API answered with a malformed message: ${what}`), false);
  };
  if (typeof message !== 'object' || message === null) return malformed(`expected a JSON object, got ${typeof message}`);
  const { content, stop_reason: stopReason } = message as { content?: unknown; stop_reason?: unknown };
  if (!Array.isArray(content)) return malformed('content is not an array');
  if (typeof stopReason !== 'string') return malformed('stop_reason is missing');
  const blocks: (TextBlock | ToolUseBlock)[] = [];
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) return malformed('a content block is not an object');
    const b = block as Record<string, unknown>;
    if (b.type === 'text') {
      if (typeof b.text !== 'string') return malformed('a text block has no text');
      blocks.push({ type: 'text', text: b.text });
    } else if (b.type === 'tool_use') {
      if (typeof b.id !== 'string' || typeof b.name !== 'string') return malformed('a tool_use block has no id or name');
      if (typeof b.input !== 'object' || b.input === null || Array.isArray(b.input)) return malformed(`tool_use ${b.name} has no input object`);
      blocks.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input as Record<string, unknown> });
    }
    // Any other block type is dropped (see above).
  }
  const turn: AssistantTurn = { role: 'assistant', content: blocks };
  const usage = usageOf((message as { usage?: unknown }).usage);
  // The model that answered, as the API names it: what the step is priced by (agent/prices.ts).
  const model = (message as { model?: unknown }).model;
  if (usage !== undefined && typeof model === 'string' && model !== '') usage.model = model;
  return usage === undefined ? { turn, stopReason } : { turn, stopReason, usage };
}

/** The Messages API's usage block in Vigil's shape; none when the reply has no counts (a fake, a proxy that strips it). */
function usageOf(value: unknown): Usage | undefined {
  const counts = value as { input_tokens?: unknown; output_tokens?: unknown; cache_read_input_tokens?: unknown; cache_creation_input_tokens?: unknown } | null | undefined;
  const count = (n: unknown): number | undefined => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined);
  const input = count(counts?.input_tokens);
  const output = count(counts?.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const usage: Usage = { inputTokens: input, outputTokens: output };
  const cacheRead = count(counts?.cache_read_input_tokens);
  const cacheWrite = count(counts?.cache_creation_input_tokens);
  if (cacheRead !== undefined) usage.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) usage.cacheWriteTokens = cacheWrite;
  return usage;
}

/**
 * What the SDK itself retries: request timeout, lock timeout, rate limited,
 * server errors (529 overloaded included). Every other status (400, 401,
 * 403, 404, 413, 422, ...) is the request's or the account's own fault: the
 * same call will fail again.
 */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function toModelError(Anthropic: Sdk, error: unknown, redact: (text: string) => string): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return new ModelError('Claude API request timed out (after the SDK retries)', true, undefined, { cause: error });
  }
  if (error instanceof Anthropic.APIConnectionError) {
    const cause = error.cause instanceof Error ? describeCause(error.cause) : '';
    return new ModelError(redact(`Claude API connection failed (after the SDK retries)${cause}`), true, undefined, { cause: error });
  }
  if (error instanceof Anthropic.APIUserAbortError) {
    // Our signal was not aborted (step() checked), so something else cancelled the request: worth another try.
    return new ModelError('Claude API request was cancelled', true, undefined, { cause: error });
  }
  if (error instanceof Anthropic.APIError && typeof error.status === 'number') {
    const status = error.status;
    const retryable = isRetryableStatus(status);
    const type = error.type ?? 'unknown_error';
    const detail = error.apiMessage ?? bodyText(error.error);
    const requestId = error.requestID ? ` (request-id ${error.requestID})` : '';
    const after = retryable ? ' after the SDK retries' : '';
    return new ModelError(redact(`Claude API error ${status} ${type}${after}: ${detail}${requestId}`), retryable, status, { cause: error });
  }
  // Anything else the SDK refused on its own (a request it will not send, e.g. one needing streaming): no retry helps.
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(redact(`Claude API call failed: ${message}`), false, undefined, { cause: error });
}

function describeCause(cause: Error): string {
  const code = (cause.cause as { code?: unknown } | undefined)?.code ?? (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `: ${code}` : `: ${cause.message}`;
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '(no body)';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 500 ? `${text.slice(0, 500)}...` : text;
}
