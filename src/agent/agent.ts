/**
 * The agent contract: what a run sees and what it may return. A run ends
 * one of three ways: messages go out, nothing does (a run that found no
 * change must not talk), or a tool call waits for a person (tools.ts: the
 * run's messages are then the urgent question, and the session it saves
 * says which call the answer resumes; tool-loop.ts does this for a model).
 */
import { VigilError } from '../errors.js';
import type { ProxyFetch } from './proxy-fetch.js';
import type { ApprovalRequest, ClaimedEvent, InboxSettings, InboxStats, OutboxMessage, RunBudget, TimerSpec, UnknownEffect, Usage } from '../store/contract.js';
import type { AgentMemory } from './memory.js';
import { validatePermissions, type Permissions } from './permissions.js';
import type { AgentSession } from './session.js';
import { compileToolSchema } from './tool-input.js';
import { checkToolNames } from './tool-names.js';
import type { Tool, ToolBox } from './tools.js';

export interface AgentContext {
  readonly inboxId: string;
  /** The claimed events, oldest first. */
  readonly events: readonly ClaimedEvent[];
  /** Aborted when the lease is lost or the run times out: stop, your finish will be refused. */
  readonly signal: AbortSignal;
  readonly now: number;
  /**
   * A key for a side effect, the same on every retry: hand it to any API
   * with side effects, so a run repeated after a crash does not refund
   * twice. Pass the event the effect belongs to: a retried event is claimed
   * alone (R4), so a key over the whole batch would differ on the retry.
   * Without an event, the key covers all of this run's events.
   */
  idempotencyKey(name: string, event?: ClaimedEvent): string;
  /**
   * Asks the user. The approval is requested with the run's finish, in its
   * transaction, so it exists only if the run's question is queued too. The
   * run should end after asking; the answer (or the expiry) arrives later as
   * an event ('approval', id). Asking again for the same id changes nothing.
   * `link` is a signed one-tap approval link when the service can make one.
   */
  requestApproval(request: ApprovalRequest): Promise<{ link: string | null }>;
  /**
   * Adds (or, by id, replaces) a timer of this inbox (TimerSpec: one-off,
   * interval or cron); its occurrences arrive later as ('timer', …) events.
   * Written at once, while the run holds the inbox, not with its finish: a
   * run retried after a crash adds the same id again, replacing it.
   * `await ctx.addTimer({ id: 'digest', cron: '0 9 * * *', tz: 'Europe/Berlin' })`.
   */
  addTimer(timer: TimerSpec): Promise<void>;
  stats(): Promise<InboxStats>;
  /**
   * This inbox's settings (its person's contacts, pacing and debounce), read
   * once, when first awaited: `const { contacts } = await ctx.settings`.
   */
  readonly settings: Promise<InboxSettings>;
  /**
   * What this run may spend (settings `budget`; contract/budget.ts): the
   * least cost left of the person's day and month, and the day's tokens
   * left; null when no budget applies. Read once, when first awaited:
   * toolAgent stops calling its model once the run's own usage reaches it.
   */
  readonly budget: Promise<RunBudget | null>;
  /** Changes them (a JSON merge patch; contract.ts, Inbox.updateSettings), e.g. from a person's "/quiet 22:00-07:00". */
  updateSettings(patch: unknown): Promise<InboxSettings>;
  /** Durable per-inbox memory; this run's changes are saved with its finish. */
  readonly memory: AgentMemory;
  /** The agent's state between runs; saved with the run's finish. */
  readonly session: AgentSession;
  /** The agent's tools, every call permission-checked. */
  readonly tools: ToolBox;
  /** fetch through the credential proxy: `ctx.fetch('github/repos/x/y')`. */
  readonly fetch: ProxyFetch;
  /**
   * The credential proxy's base URL, or null when the service has none: for
   * a framework that wants a base URL rather than a fetch (a model provider
   * at `${ctx.proxyUrl}/anthropic`, whose key the proxy adds).
   */
  readonly proxyUrl: string | null;
  /**
   * Reports model usage this run caused, for an agent that calls a model
   * itself (toolAgent and the adapters report theirs). Adds up over the run;
   * the run's total goes out with its end (the run:finished event). Throws a
   * VigilError for a figure that is not a count.
   */
  recordUsage(usage: Usage): void;
  /**
   * The side-effect calls (tools declared `sideEffect`) a crash or a lost
   * lease left unknown: started, never confirmed or failed. Read when
   * called, not for every run. The toolbox refuses to run one again
   * (status 'unknown') until it is settled.
   */
  unknownEffects(): Promise<UnknownEffect[]>;
  /**
   * Settles an unknown call at once, after checking (the API's own record
   * under the key): `confirmed` it happened, `failed` it did not (a later
   * call with the same key may then run it). A key that is not unknown is
   * VigilError('not_unknown'), and nothing changes.
   */
  settleEffect(key: string, state: 'confirmed' | 'failed'): Promise<void>;
  /**
   * Asks a person whether an unknown call happened: an approval (asked with
   * the run's finish, as requestApproval) whose `yes` settles it confirmed
   * and whose `no` failed, before the run its answer wakes sees it; an
   * expiry settles nothing. Return `message` from the run to send the
   * question. Not unknown: VigilError('not_unknown').
   */
  askAboutEffect(key: string, options?: { expiresInMs?: number }): Promise<{ approvalId: string; link: string | null; message: OutboxMessage }>;
}

/**
 * What a run returns: messages, or nothing to say; and, optionally, what
 * its model calls used (else what it recorded with ctx.recordUsage).
 */
export type AgentResult = ({ messages: OutboxMessage[] } | { nothing: true }) & { usage?: Usage };

/** Which of a batch's events a screening step refuses, and why. */
export interface ScreenVerdict {
  reject: { eventId: number; reason: string }[];
}

export interface Agent {
  readonly name: string;
  readonly tools: readonly Tool[];
  readonly permissions: Permissions;
  /**
   * Optional, before the run sees untrusted text: events it rejects go dead
   * at once with the reason (visible, and redrivable by an operator); the
   * run gets the rest.
   */
  readonly screen?: ((events: readonly ClaimedEvent[]) => ScreenVerdict | Promise<ScreenVerdict>) | undefined;
  /**
   * Optional, for webhooks to one URL for every user (`POST /hooks/<source>`)
   * whose source config has no `inbox.from`: which inbox a verified delivery
   * belongs to, or null when none (the sender gets 422 `unroutable`, nothing
   * is stored). Runs only after the signature was checked.
   */
  readonly route?: InboxRouter | undefined;
  run(ctx: AgentContext): Promise<AgentResult>;
}

/** `headers` has lower-case names, as HTTP/2 and Node write them. */
export type InboxRouter = (source: string, payload: unknown, headers: Readonly<Record<string, string>>) => string | null | undefined | Promise<string | null | undefined>;

export interface AgentDefinition {
  name?: string;
  tools?: readonly Tool[];
  permissions?: Permissions;
  screen?: Agent['screen'];
  route?: InboxRouter;
  run: Agent['run'];
}

export function defineAgent(agent: AgentDefinition): Agent {
  if (typeof agent !== 'object' || agent === null || typeof agent.run !== 'function') {
    throw new VigilError('invalid_argument', 'defineAgent needs { run(ctx) }');
  }
  const tools = agent.tools ?? [];
  const names = tools.map((tool) => tool.name);
  checkToolNames(names);
  for (const tool of tools) compileToolSchema(tool);
  if (agent.screen !== undefined && typeof agent.screen !== 'function') throw new VigilError('invalid_options', 'screen must be a function');
  if (agent.route !== undefined && typeof agent.route !== 'function') throw new VigilError('invalid_options', 'route must be a function');
  return {
    name: agent.name ?? 'agent',
    tools,
    permissions: validatePermissions(agent.permissions, names),
    screen: agent.screen?.bind(agent),
    route: agent.route?.bind(agent),
    run: agent.run.bind(agent),
  };
}

const TERMINAL = Symbol.for('vigil.TerminalError');

/**
 * Throw it from a run for a failure no retry can fix: the run's events go
 * dead at once with the message (R6), instead of being retried until their
 * attempts run out. The tool loop throws it for a request the model API
 * refuses as invalid.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  /** See isTerminalError. */
  readonly [TERMINAL] = true;
}

/**
 * By brand, not instanceof: a `.ts` agent module is loaded with its own copy
 * of Vigil's modules (tsx), so its TerminalError is another class than the
 * runtime's, with the same registered symbol.
 */
export function isTerminalError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[TERMINAL] === true;
}
