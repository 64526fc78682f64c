/**
 * The part of the AI SDK's provider specification this adapter speaks, as
 * plain structural types: `LanguageModelV3` (ai 6's providers), its
 * successor `LanguageModelV4` (ai 7's) and `LanguageModelV2` (ai 5's, which
 * ai 6 still runs) share `doGenerate(options)` with the same prompt and
 * content parts; they differ in the finish reason (a string in v2, an
 * object in v3 and v4) and the usage (flat counts in v2, nested in v3 and
 * v4). Written out here rather than imported from `@ai-sdk/provider`, whose
 * major follows the `ai` major: the adapter must accept a model from either.
 */

export type SpecVersion = 'v2' | 'v3' | 'v4';
export const SPEC_VERSIONS: readonly string[] = ['v2', 'v3', 'v4'];

export type PromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: { type: 'text'; text: string }[] }
  | { role: 'assistant'; content: ({ type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown })[] }
  | { role: 'tool'; content: { type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'text' | 'error-text'; value: string } }[] };

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface CallOptions {
  prompt: PromptMessage[];
  tools?: FunctionTool[];
  toolChoice?: { type: 'auto' };
  maxOutputTokens?: number;
  temperature?: number;
  abortSignal?: AbortSignal;
  headers?: Record<string, string | undefined>;
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** A content part of a reply; only text and (client-side) tool calls are read. */
export interface ContentPart {
  type: string;
  text?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  /** The call's arguments as JSON text. */
  input?: unknown;
  providerExecuted?: unknown;
}

export interface GenerateResult {
  content: ContentPart[];
  /** v2: a string; v3, v4: `{ unified, raw }`. */
  finishReason: unknown;
  /** v2: `{ inputTokens, outputTokens, cachedInputTokens }`; v3, v4: `{ inputTokens: { total, noCache, cacheRead, cacheWrite }, outputTokens: { total } }`. */
  usage?: unknown;
  /** Every version: the response's metadata, `modelId` the model that answered (maybe a dated snapshot of the one asked). */
  response?: { modelId?: unknown };
}

/** An AI SDK language model object of any supported specification version. */
export interface SpecLanguageModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: CallOptions): PromiseLike<GenerateResult>;
}
