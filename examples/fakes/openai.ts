/**
 * A local fake of the OpenAI Chat Completions API, as OpenAI and the
 * servers that copy it (Ollama, vLLM, LM Studio) answer it:
 * `POST /v1/chat/completions`, JSON or, with `"stream": true`, server-sent
 * `chat.completion.chunk`s ending in `data: [DONE]` (the usage in a last
 * chunk when `stream_options.include_usage` asks for it). Tool calls are
 * `tool_calls` with JSON `arguments`; results come back as `role: "tool"`
 * messages. What it answers comes from model-script.ts (a queue, then a
 * script; by default the hand-steerable `defaultScript`). Errors are
 * `{"error":{"message","type"}}`.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { listenFake, parseJson, sendJson, type FakeOptions } from './listen.js';
import { describeReply, ReplyQueue, retryable, usageOf, type FakeReply, type ModelCall, type ReplyScript, type ScriptOptions } from './model-script.js';

export interface OpenAIRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  raw: string;
}

export interface FakeOpenAI {
  /** The base URL to hand a client, with `/v1`: http://127.0.0.1:<port>/v1. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: OpenAIRequest[];
  /** Replies (or scripts) for the next requests, in order, before the script answers. */
  enqueue(...replies: (FakeReply | ReplyScript)[]): void;
  close(): Promise<void>;
}

export interface FakeOpenAIOptions extends FakeOptions, ScriptOptions {
  /** The key it accepts as `Authorization: Bearer <key>`; without one it takes any request, as a local server does. */
  apiKey?: string;
}

/** What `npm run fakes -- openai` serves, for its banner. */
export const OPENAI_ROUTES = ['POST /v1/chat/completions (JSON, or server-sent events with "stream": true)'];

interface ChatMessage {
  role: string;
  content?: string | null | { type: string; text?: string }[];
}

interface ChatRequest {
  model?: string;
  messages: ChatMessage[];
  tools?: { function?: { name?: string } }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: OpenAIRequest[] = [];
  const replies = new ReplyQueue(options.script);
  let ids = 0;

  const server = await listenFake(options, async ({ method, path, headers, raw }, res, note) => {
    const body = parseJson(raw);
    const index = requests.length;
    requests.push({ method, path, headers, body, raw });
    ids += 1;
    const error = (status: number, type: string, message: string): void => {
      note(message);
      sendJson(res, status, { error: { message, type, param: null, code: null } }, retryable(status) ? { 'retry-after-ms': '1' } : {});
    };
    if (method !== 'POST' || path !== '/v1/chat/completions') return error(404, 'invalid_request_error', `fake: no route ${method} ${path}`);
    if (options.apiKey !== undefined && headers.authorization !== `Bearer ${options.apiKey}`) return error(401, 'invalid_request_error', 'Incorrect API key provided');
    if (typeof body !== 'object' || body === null || !Array.isArray((body as { messages?: unknown }).messages)) return error(400, 'invalid_request_error', "'messages' is a required property");

    const request = body as ChatRequest;
    const reply = await replies.next(modelCall(request, index));
    note(describeReply(reply));
    if ('error' in reply) return error(reply.error.status, reply.error.type ?? (reply.error.status === 429 ? 'rate_limit_exceeded' : 'server_error'), reply.error.message);
    const completion = asCompletion(reply, request.model ?? 'fake', raw, ids);
    if (request.stream === true) stream(res, completion, request.stream_options?.include_usage === true);
    else sendJson(res, 200, completion);
  });
  return { url: `${server.url}/v1`, requests, enqueue: (...queued) => replies.enqueue(...queued), close: server.close };
}

function modelCall(request: ChatRequest, index: number): ModelCall {
  const text = (message: ChatMessage | undefined): string | null => {
    if (message === undefined || message.content === null || message.content === undefined) return null;
    if (typeof message.content === 'string') return message.content;
    return message.content.filter((part) => part.type === 'text').at(-1)?.text ?? null;
  };
  const last = request.messages.at(-1);
  // The results of one turn's calls are the `tool` messages at the end, one per call.
  const results: ChatMessage[] = [];
  for (let i = request.messages.length - 1; i >= 0 && request.messages[i]!.role === 'tool'; i -= 1) results.unshift(request.messages[i]!);
  return {
    index,
    model: request.model ?? '',
    lastUserText: last?.role === 'user' ? text(last) : null,
    toolResult: results.length === 0 ? null : results.map((m) => text(m) ?? '').join('\n'),
    tools: (request.tools ?? []).flatMap((tool) => (typeof tool.function?.name === 'string' ? [tool.function.name] : [])),
    stream: request.stream === true,
    body: request as unknown as Record<string, unknown>,
  };
}

interface Completion {
  id: string;
  created: number;
  model: string;
  choices: [{ index: 0; message: { role: 'assistant'; content: string | null; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }; finish_reason: string }];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; prompt_tokens_details: { cached_tokens: number } };
}

function asCompletion(reply: Extract<FakeReply, { text?: string }>, model: string, raw: string, id: number): Completion & { object: string } {
  const usage = usageOf(reply, raw);
  const calls = (reply.toolCalls ?? []).map((call, i) => ({ id: call.id ?? `call_fake_${id}_${i}`, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.input) } }));
  const stop = reply.stop ?? (calls.length > 0 ? 'tool_use' : 'end_turn');
  return {
    id: `chatcmpl-fake-${id}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: reply.text ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }, finish_reason: { tool_use: 'tool_calls', max_tokens: 'length', end_turn: 'stop' }[stop] }],
    usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens, prompt_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 } },
  };
}

/** The completion as chunks: the role and text, each tool call whole, the finish reason, the usage when asked for, `[DONE]`. */
function stream(res: ServerResponse, completion: Completion, includeUsage: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const { choices, usage, ...rest } = completion;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): void =>
    void res.write(`data: ${JSON.stringify({ ...rest, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  const { message, finish_reason } = choices[0];
  chunk({ role: 'assistant', content: message.content ?? '' });
  (message.tool_calls ?? []).forEach((call, index) => chunk({ tool_calls: [{ index, ...call }] }));
  chunk({}, finish_reason);
  if (includeUsage) res.write(`data: ${JSON.stringify({ ...rest, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
  res.write('data: [DONE]\n\n');
  res.end();
}
