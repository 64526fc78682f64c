/**
 * What the fake model APIs (anthropic.ts, openai.ts) answer, in one shape
 * for both wire formats: a `FakeReply` (text, tool calls, usage, or an API
 * error), picked for each request by a script that sees the request as a
 * `ModelCall` (the last user text, the tool result being answered, the
 * tools on offer). A test scripts the replies; without one, `defaultScript`
 * plays a model you can steer by hand:
 *
 * - a message that names an offered tool calls it, with the `key=value`
 *   pairs after the name as its input (`cancel_order order=43` →
 *   `cancel_order({"order":"43"})`; values are strings), or the JSON object
 *   in the message when it holds one (`lookup {"id": 7}`);
 * - a tool's result is answered with `Done: <the result>`;
 * - anything else is echoed: `You said: <text>`.
 */
import { oneLine } from './listen.js';

export interface FakeToolCall {
  /** Made up (`toolu_fake_1`, `call_fake_1`) when left out. */
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

export type FakeReply =
  | {
      text?: string;
      toolCalls?: FakeToolCall[];
      /** Default: counted from the request and the reply (about 4 characters a token). */
      usage?: FakeUsage;
      /** Why the model stopped; default `tool_use` with tool calls, else `end_turn`. */
      stop?: 'end_turn' | 'tool_use' | 'max_tokens';
    }
  | {
      /** An error answer in the API's own shape; 429 and 5xx carry `retry-after-ms: 1` so SDKs retry at once. */
      error: { status: number; message: string; type?: string };
    };

/** A request to a fake model API, as a script sees it. */
export interface ModelCall {
  /** 0 for the first request this fake got. */
  index: number;
  model: string;
  /** The text of the last user message (its last text part), or null when the last message is a tool result. */
  lastUserText: string | null;
  /** The content of the last tool result when the last message answers a tool call (joined when several), else null. */
  toolResult: string | null;
  /** The tool names on offer, as the model sees them. */
  tools: string[];
  stream: boolean;
  /** The parsed request body, for anything else. */
  body: Record<string, unknown>;
}

export type ReplyScript = (call: ModelCall) => FakeReply | Promise<FakeReply>;

/** The scripts both fakes accept: a queue taken first, then a script for every other request. */
export interface ScriptOptions {
  /** Answers every request the queue does not; default `defaultScript`. */
  script?: ReplyScript;
}

export const defaultScript: ReplyScript = (call) => {
  if (call.toolResult !== null) return { text: `Done: ${call.toolResult}` };
  const text = call.lastUserText ?? '';
  const named = namedTool(text, call.tools);
  if (named !== null) return { toolCalls: [{ name: named, input: inputAfter(text, named) }] };
  return { text: text.trim() === '' ? 'Hello.' : `You said: ${text.trim()}` };
};

/** The longest offered tool name the text names as a word of its own. */
function namedTool(text: string, tools: string[]): string | null {
  const found = tools.filter((name) => new RegExp(`(^|[^\\w.-])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=$|[^\\w.-])`).test(text));
  return found.sort((a, b) => b.length - a.length)[0] ?? null;
}

function inputAfter(text: string, tool: string): Record<string, unknown> {
  const rest = text.slice(text.indexOf(tool) + tool.length);
  const json = /\{[\s\S]*\}/.exec(rest)?.[0];
  if (json !== undefined) {
    try {
      const value = JSON.parse(json) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Not JSON after all: read key=value pairs instead.
    }
  }
  return Object.fromEntries([...rest.matchAll(/([A-Za-z_][\w-]*)=("[^"]*"|\S+)/g)].map(([, key, value]) => [key!, value!.replace(/^"(.*)"$/, '$1')]));
}

/** Replies to hand out in order, then the script. */
export class ReplyQueue {
  private readonly queued: (FakeReply | ReplyScript)[] = [];
  constructor(private readonly script: ReplyScript = defaultScript) {}

  enqueue(...replies: (FakeReply | ReplyScript)[]): void {
    this.queued.push(...replies);
  }

  async next(call: ModelCall): Promise<FakeReply> {
    const next = this.queued.shift() ?? this.script;
    return typeof next === 'function' ? next(call) : next;
  }
}

/** About 4 characters a token: deterministic, and roughly what a real tokenizer says of English. */
export const tokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

export function usageOf(reply: Extract<FakeReply, { text?: string }>, requestRaw: string): FakeUsage {
  return reply.usage ?? { inputTokens: tokens(requestRaw), outputTokens: tokens((reply.text ?? '') + JSON.stringify(reply.toolCalls ?? [])) };
}

/** What a fake's log line says it answered. */
export function describeReply(reply: FakeReply): string {
  if ('error' in reply) return `error ${reply.error.status}: ${reply.error.message}`;
  const calls = (reply.toolCalls ?? []).map((call) => `tool ${call.name}(${JSON.stringify(call.input)})`);
  return [...(reply.text === undefined ? [] : [oneLine(reply.text)]), ...calls].join(' + ');
}

/** The error statuses an SDK retries; the fakes ask for an immediate retry on them. */
export const retryable = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500;
