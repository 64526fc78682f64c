/**
 * ctx.session: the agent's own state between runs (the tool loop keeps its
 * conversation and pending tool calls there). Like memory, a change is
 * saved by the run's finish, in its transaction, or not at all.
 */
import type { Inbox } from '../store/contract.js';

export interface AgentSession {
  /** The session the last successful run saved (this run's change included), or null. */
  get(): Promise<unknown>;
  /** Replaces the session; saved when the run finishes successfully. */
  set(value: unknown): void;
  clear(): void;
}

export class StagedSession implements AgentSession {
  private loaded: { value: unknown } | null = null;
  private changed: { value: unknown } | null = null;

  constructor(private readonly inbox: Inbox) {}

  async get(): Promise<unknown> {
    if (this.changed !== null) return this.changed.value;
    this.loaded ??= { value: await this.inbox.getSession() };
    return this.loaded.value;
  }

  set(value: unknown): void {
    // A copy: later changes to the agent's object are not saved behind its back.
    this.changed = { value: value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown) };
  }

  clear(): void {
    this.changed = { value: null };
  }

  /** What the finish saves: undefined when the run left the session alone. */
  pending(): unknown {
    return this.changed === null ? undefined : this.changed.value;
  }
}
