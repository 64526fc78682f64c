/**
 * What the tool loop (tool-loop.ts) needs from a language model: one call
 * that takes the conversation so far and the tools on offer and returns the
 * assistant's next turn. The Claude adapter (claude/) is one; tests script
 * their own.
 */
import type { AssistantTurn, Turn } from './conversation.js';
import type { Usage } from './usage.js';

/** A tool as the model sees it: a name, what it does, and a JSON Schema for its input. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'pause_turn' | (string & {});

export interface ModelReply {
  turn: AssistantTurn;
  stopReason: StopReason;
  /** What this call used, when the API says; the tool loop sums it for the run. */
  usage?: Usage;
}

export interface Model {
  readonly name: string;
  /**
   * One model call. `history` ends with a user turn. Throws a ModelError
   * when the call fails: `retryable` decides whether the run's events are
   * tried again later (R5) or go dead at once.
   */
  step(history: readonly Turn[], tools: readonly ToolSpec[], signal: AbortSignal): Promise<ModelReply>;
}

/** A failed model call, sorted into "try again later" and "will never work". */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    message: string,
    /** Overloaded, rate limited, a server error, a lost connection: worth retrying with backoff. */
    readonly retryable: boolean,
    /** The HTTP status, when the API answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
