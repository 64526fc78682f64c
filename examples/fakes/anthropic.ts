/**
 * A local fake of Anthropic's Messages API, enough of its wire format for
 * the real clients pointed at it by base URL (the `@anthropic-ai/sdk`,
 * `@ai-sdk/anthropic`, the Claude Agent SDK's CLI through
 * `ANTHROPIC_BASE_URL`): `POST /v1/messages` (a `?beta=true` query too),
 * JSON or, with `"stream": true`, server-sent events as the API streams
 * them (message_start, content blocks with text and input_json deltas,
 * message_delta with the usage, message_stop). Messages with
 * `role: "system"` inside `messages` are accepted, as the CLI sends them.
 * What it answers comes from model-script.ts (a queue, then a script; by
 * default the hand-steerable `defaultScript`). Errors carry the API's body
 * (`{"type":"error","error":{"type","message"}}`) and a `request-id`.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { listenFake, parseJson, sendJson, type FakeOptions } from './listen.js';
import { describeReply, ReplyQueue, retryable, tokens, usageOf, type FakeReply, type ModelCall, type ReplyScript, type ScriptOptions } from './model-script.js';

export interface AnthropicRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** The raw body, for "this string never appears" assertions. */
  raw: string;
}

export interface FakeAnthropic {
  /** The base URL to hand a client (`baseURL`, `ANTHROPIC_BASE_URL`): http://127.0.0.1:<port>, no `/v1`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: AnthropicRequest[];
  /** Replies (or scripts) for the next requests, in order, before the script answers. */
  enqueue(...replies: (FakeReply | ReplyScript)[]): void;
  close(): Promise<void>;
}

export interface FakeAnthropicOptions extends FakeOptions, ScriptOptions {
  /** The key it accepts (`x-api-key`, or `Authorization: Bearer`); without one, any key will do, but one is required. */
  apiKey?: string;
}

/** What `npm run fakes -- anthropic` serves, for its banner. */
export const ANTHROPIC_ROUTES = ['POST /v1/messages (JSON, or server-sent events with "stream": true)', 'POST /v1/messages/count_tokens'];

interface Block {
  type: string;
  text?: string;
  content?: unknown;
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const requests: AnthropicRequest[] = [];
  const replies = new ReplyQueue(options.script);
  let ids = 0;

  const server = await listenFake(options, async ({ method, path, headers, raw }, res, note) => {
    const body = parseJson(raw);
    const index = requests.length;
    requests.push({ method, path, headers, body, raw });
    ids += 1;
    const error = (status: number, type: string, message: string): void => {
      note(message);
      sendJson(res, status, { type: 'error', error: { type, message } }, { 'request-id': `req_fake_${ids}`, ...(retryable(status) ? { 'retry-after-ms': '1' } : { 'x-should-retry': 'false' }) });
    };
    if (method !== 'POST' || (path !== '/v1/messages' && path !== '/v1/messages/count_tokens')) return error(404, 'not_found_error', `fake: no route ${method} ${path}`);
    const key = headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, '');
    if (key === undefined || (options.apiKey !== undefined && key !== options.apiKey)) return error(401, 'authentication_error', 'invalid x-api-key');
    if (headers['anthropic-version'] === undefined) return error(400, 'invalid_request_error', 'anthropic-version header is required');
    if (typeof body !== 'object' || body === null || !Array.isArray((body as { messages?: unknown }).messages)) return error(400, 'invalid_request_error', 'messages: field required');
    if (path === '/v1/messages/count_tokens') return sendJson(res, 200, { input_tokens: tokens(raw) });

    const request = body as { model?: string; messages: { role: string; content: string | Block[] }[]; tools?: { name: string }[]; stream?: boolean };
    const reply = await replies.next(modelCall(request, index));
    note(describeReply(reply));
    if ('error' in reply) return error(reply.error.status, reply.error.type ?? (reply.error.status === 429 ? 'rate_limit_error' : 'api_error'), reply.error.message);
    const message = asMessage(reply, request.model ?? 'claude-fake', raw, ids);
    if (request.stream === true) stream(res, message, ids);
    else sendJson(res, 200, message, { 'request-id': `req_fake_${ids}` });
  });
  return { url: server.url, requests, enqueue: (...queued) => replies.enqueue(...queued), close: server.close };
}

function modelCall(request: { model?: string; messages: { role: string; content: string | Block[] }[]; tools?: { name: string }[]; stream?: boolean }, index: number): ModelCall {
  const last = request.messages.filter((m) => m.role !== 'system').at(-1);
  const blocks: Block[] = last === undefined ? [] : typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const results = last?.role === 'user' ? blocks.filter((b) => b.type === 'tool_result') : [];
  const texts = last?.role === 'user' ? blocks.filter((b) => b.type === 'text') : [];
  return {
    index,
    model: request.model ?? '',
    lastUserText: results.length > 0 ? null : (texts.at(-1)?.text ?? null),
    toolResult: results.length === 0 ? null : results.map((b) => contentText(b.content)).join('\n'),
    tools: (request.tools ?? []).map((tool) => tool.name),
    stream: request.stream === true,
    body: request as unknown as Record<string, unknown>,
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return (content as Block[]).flatMap((b) => (b.type === 'text' ? [b.text ?? ''] : [])).join('');
  return '';
}

interface Message {
  id: string;
  content: ({ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> })[];
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  [key: string]: unknown;
}

function asMessage(reply: Extract<FakeReply, { text?: string }>, model: string, raw: string, id: number): Message {
  const usage = usageOf(reply, raw);
  const calls = reply.toolCalls ?? [];
  return {
    id: `msg_fake_${id}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      ...(reply.text === undefined ? [] : [{ type: 'text' as const, text: reply.text }]),
      ...calls.map((call, i) => ({ type: 'tool_use' as const, id: call.id ?? `toolu_fake_${id}_${i}`, name: call.name, input: call.input })),
    ],
    stop_reason: reply.stop ?? (calls.length > 0 ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cache_read_input_tokens: usage.cacheReadTokens ?? 0, cache_creation_input_tokens: usage.cacheWriteTokens ?? 0 },
  };
}

/** The message as the API streams it: each block opened, its text or its input's JSON as a delta, closed; the stop reason and usage last. */
function stream(res: ServerResponse, message: Message, id: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_fake_${id}` });
  const event = (type: string, data: Record<string, unknown>): void => void res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const { content, stop_reason, usage, ...rest } = message;
  event('message_start', { message: { ...rest, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      event('content_block_start', { index, content_block: { ...block, input: {} } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason, stop_sequence: null }, usage });
  event('message_stop', {});
  res.end();
}
