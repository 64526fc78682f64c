/**
 * Which tool calls one assistant turn holds, read from the query's stream
 * (`includePartialMessages`) before any of them is decided.
 *
 * Why: Claude Code fires the PreToolUse hook for a turn's first call as it
 * streams, before the turn's later calls are known, and a hook's `defer`
 * only works for a turn with a single call: with several, the SDK defers
 * the last one and drops the others from the transcript (seen with 0.3.337
 * against the fake: the resumed session held only the last call). So every
 * hook waits until its turn's message has ended, and decides knowing all
 * of the turn's calls.
 */
export interface TurnCall {
  id: string;
  /** The SDK's name of the tool. */
  name: string;
}

interface OpenTurn {
  calls: TurnCall[];
  done: boolean;
}

/** The stream events this reads (the Messages API's, as the SDK forwards them). */
export interface StreamEvent {
  type: string;
  content_block?: { type?: string; id?: string; name?: string };
}

export class TurnWatcher {
  /** Per stream (the main thread, or a subagent's): the turn being streamed. */
  private readonly current = new Map<string, OpenTurn>();
  private readonly byCall = new Map<string, OpenTurn>();
  /** Checked after every event: a hook may fire before the run's loop has read its call's events. */
  private readonly waiting = new Set<() => void>();

  /** Feeds one stream event; `stream` tells the main thread's from a subagent's. */
  see(stream: string, event: StreamEvent): void {
    const turn = this.current.get(stream);
    const block = event.content_block;
    if (event.type === 'message_start') {
      this.current.set(stream, { calls: [], done: false });
    } else if (turn !== undefined && event.type === 'content_block_start' && block?.type === 'tool_use' && typeof block.id === 'string') {
      const call = { id: block.id, name: String(block.name) };
      turn.calls.push(call);
      this.byCall.set(call.id, turn);
    } else if (turn !== undefined && event.type === 'message_stop') {
      turn.done = true;
    }
    for (const check of [...this.waiting]) check();
  }

  /**
   * Every call of the turn that holds `toolUseId`, once that turn has ended.
   * Rejects when the stream has not shown it within `timeoutMs`, or when
   * `signal` aborts: the hook then fails, and a failed hook blocks the call.
   */
  callsWith(toolUseId: string, signal: AbortSignal, timeoutMs: number): Promise<TurnCall[]> {
    return new Promise<TurnCall[]>((resolve, reject) => {
      const settle = (error?: Error): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abort);
        this.waiting.delete(check);
        if (error === undefined) resolve([...this.byCall.get(toolUseId)!.calls]);
        else reject(error);
      };
      const check = (): void => {
        if (this.byCall.get(toolUseId)?.done === true) settle();
      };
      const abort = (): void => settle(signal.reason instanceof Error ? signal.reason : new Error('the permission wait was cancelled'));
      const timer = setTimeout(() => settle(new Error(`the turn holding ${toolUseId} was not seen to end within ${timeoutMs} ms`)), timeoutMs);
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      this.waiting.add(check);
      check();
    });
  }
}
