/**
 * The tool-use loop, for any Model (the Claude adapter is one): the
 * conversation lives in the inbox's session, each run adds what arrived,
 * lets the model answer and call tools, and ends one of three ways:
 *
 *  - a message goes out (the model's last text),
 *  - nothing goes out (nothing new, or the model had nothing to say),
 *  - or a tool call needs a person: the run asks (an urgent message with
 *    the one-tap link) and saves the session *in the middle of the call*:
 *    the assistant turn with its tool calls, the results it already has,
 *    and which approval answers which call.
 *
 * The answer (or its expiry) arrives as the ('approval', id) event and
 * resumes exactly that call: yes runs the tool, no and expired give the
 * model a refusal. When one assistant turn asked several approvals, the
 * model waits until every one is answered, in any order; each resumes once
 * because its event is stored and done once (R1, R3), and the session is
 * saved in the same transaction as that event's finish.
 */
import { VigilError } from '../errors.js';
import type { ClaimedEvent, DecisionRecord, OutboxMessage } from '../store/contract.js';
import { defineAgent, TerminalError, type Agent, type AgentContext } from './agent.js';
import { textOf, type AssistantTurn, type TextBlock, type ToolResultBlock, type ToolUseBlock, type Turn } from './conversation.js';
import { ModelError, type Model } from './model.js';
import { addUsage, capReached, type Usage } from './usage.js';
import { validatePermissions, type Permissions } from './permissions.js';
import { stableJson, type Tool, type ToolOutcome } from './tools.js';

export interface ToolAgentOptions {
  name?: string;
  model: Model;
  tools?: readonly Tool[];
  permissions?: Permissions;
  /** How an event reads to the model. Default: a chat message's text, otherwise source, key and payload as JSON. */
  render?: (event: ClaimedEvent) => string;
  /** Turns of conversation kept in the session (older ones are dropped whole). Default 40. */
  historyTurns?: number;
  /** Model calls in one run before it is stopped as a loop. Default 8. */
  maxSteps?: number;
}

/** What the loop keeps in the inbox's session. */
export interface ToolLoopSession {
  kind: 'vigil.tool-loop';
  history: Turn[];
  /** The last assistant turn's tool calls still waiting for a person, or null. */
  waiting: Waiting | null;
  /** The latest permission decisions, newest last. */
  decisions: DecisionRecord[];
}

export interface Waiting {
  /** Results for the turn's tool calls so far. */
  results: ToolResultBlock[];
  /** approval id → the tool_use ids it answers (identical calls of one turn share one). */
  pending: Record<string, string[]>;
  /** What else arrived meanwhile: the model hears it with the results. */
  arrived: TextBlock[];
}

const KEPT_DECISIONS = 50;
const MAX_EVENT_CHARS = 8_000;

export function toolAgent(options: ToolAgentOptions): Agent {
  const tools = options.tools ?? [];
  const permissions = validatePermissions(options.permissions, tools.map((tool) => tool.name));
  const historyTurns = options.historyTurns ?? 40;
  const maxSteps = options.maxSteps ?? 8;
  if (!Number.isSafeInteger(historyTurns) || historyTurns < 2) throw new VigilError('invalid_options', 'historyTurns must be an integer of at least 2');
  if (!Number.isSafeInteger(maxSteps) || maxSteps < 1) throw new VigilError('invalid_options', 'maxSteps must be a positive integer');
  const render = options.render ?? renderEvent;

  return defineAgent({
    name: options.name ?? options.model.name,
    tools,
    permissions,
    async run(ctx) {
      const session = toSession(await ctx.session.get());
      const arrived: TextBlock[] = [];
      for (const event of ctx.events) {
        if (ctx.tools.isToolApproval(event)) {
          const toolUseIds = session.waiting?.pending[event.sourceId];
          // Approvals are asked with the finish that saves the session (RunOutcome.approvals),
          // and each answer arrives once (R8): an answer the session does not wait for
          // belongs to no call of this conversation, and changes nothing.
          if (session.waiting === null || toolUseIds === undefined) continue;
          const outcome = await ctx.tools.runApproved(event);
          for (const id of toolUseIds) session.waiting.results.push(toolResult(id, outcome));
          delete session.waiting.pending[event.sourceId];
        } else {
          arrived.push({ type: 'text', text: render(event) });
        }
      }

      // A side-effect call a crash left unknown is never run again on its own (the toolbox
      // refuses it): the model hears of it first, so it can say so rather than retry blindly.
      if (arrived.length > 0 && tools.some((tool) => tool.sideEffect === true)) arrived.unshift(...(await unknownEffectsNote(ctx)));
      const spent: { usage?: Usage } = {};
      const result = await converse(ctx, session, arrived, options.model, maxSteps, spent);
      session.history = bound(session.history, historyTurns);
      session.decisions = [...session.decisions, ...ctx.tools.decisions].slice(-KEPT_DECISIONS);
      ctx.session.set(session);
      const usage = spent.usage === undefined ? {} : { usage: spent.usage };
      return result.length > 0 ? { messages: result, ...usage } : { nothing: true, ...usage };
    },
  });
}

async function converse(ctx: AgentContext, session: ToolLoopSession, arrived: TextBlock[], model: Model, maxSteps: number, spent: { usage?: Usage }): Promise<OutboxMessage[]> {
  const { waiting } = session;
  if (waiting !== null && Object.keys(waiting.pending).length > 0) {
    // The model cannot go on until every call of its last turn has a result.
    waiting.arrived.push(...arrived);
    return [];
  }
  // The budget's remainder caps the run (ctx.budget): it stops before a model call once its own
  // usage reaches it, so it overshoots by at most one step; what it has waits for the next run.
  const cap = await ctx.budget;
  if (capReached(undefined, cap)) {
    // Nothing left before it began (a run that raced its pause): what arrived waits with what waited.
    session.waiting = { results: waiting?.results ?? [], pending: {}, arrived: [...(waiting?.arrived ?? []), ...arrived] };
    return [];
  }
  const content = waiting === null ? arrived : [...waiting.results, ...waiting.arrived, ...arrived];
  session.waiting = null;
  if (content.length === 0) return []; // nothing new: nothing to say
  session.history.push({ role: 'user', content });

  for (let step = 0; step < maxSteps; step++) {
    if (step > 0 && capReached(spent.usage, cap)) return stopAtCap(session);
    const reply = await callModel(model, session.history, ctx);
    if (reply.usage !== undefined) {
      // Recorded step by step, so a run that fails later still reports what it spent.
      ctx.recordUsage(reply.usage);
      spent.usage = addUsage(spent.usage, reply.usage);
    }
    // Blank text blocks (and so an empty turn) cannot be sent back as history: the API
    // refuses them with a 400, which would fail every later run of this inbox.
    const turn: AssistantTurn = { role: 'assistant', content: reply.turn.content.filter((block) => block.type !== 'text' || block.text.trim() !== '') };
    if (turn.content.length === 0) return [];
    session.history.push(turn);
    const uses = turn.content.filter((block): block is ToolUseBlock => block.type === 'tool_use');
    if (uses.length === 0) {
      const text = textOf(turn);
      return text === '' ? [] : [text];
    }
    const next: Waiting = { results: [], pending: {}, arrived: [] };
    const asks: OutboxMessage[] = [];
    // Identical calls in one turn are one action: performed (or asked) once, every
    // tool_use answered with its result. A duplicate refund is worse than a wasted call.
    for (const [call, ids] of sameCalls(uses)) {
      const outcome = await ctx.tools.call(call.name, call.input);
      if (outcome.status === 'deferred') {
        next.pending[outcome.approvalId] = ids;
        asks.push(outcome.message);
      } else {
        for (const id of ids) next.results.push(toolResult(id, outcome));
      }
    }
    if (asks.length > 0) {
      // Saved mid-call: the answers resume it (see toolAgent).
      session.waiting = next;
      return asks;
    }
    session.history.push({ role: 'user', content: next.results });
  }
  throw new Error(`the model was still calling tools after ${maxSteps} steps; stopped as a loop`);
}

/**
 * The run reached its cap with tool results the model has not seen: they
 * become what the next run (after the pause for spend) starts from, as an
 * answered approval's would, and this run ends cleanly with nothing more
 * to say (the store's pause notice tells the person).
 */
function stopAtCap(session: ToolLoopSession): OutboxMessage[] {
  const results = session.history.pop()!;
  session.waiting = { results: results.content as Waiting['results'], pending: {}, arrived: [] };
  return [];
}

async function callModel(model: Model, history: readonly Turn[], ctx: AgentContext): ReturnType<Model['step']> {
  try {
    return await model.step(history, ctx.tools.specs, ctx.signal);
  } catch (error) {
    // A request the API will never accept must not be retried until it is dead: dead at once.
    if (isTerminalModelError(error)) throw new TerminalError((error as Error).message, { cause: error });
    throw error;
  }
}

/** By shape: a custom Model may throw the ModelError of another copy of Vigil's modules. */
function isTerminalModelError(error: unknown): boolean {
  return error instanceof ModelError ? !error.retryable : (error as { name?: unknown; retryable?: unknown } | null)?.name === 'ModelError' && (error as { retryable?: unknown }).retryable === false;
}

function toolResult(toolUseId: string, outcome: Exclude<ToolOutcome, { status: 'deferred' }>): ToolResultBlock {
  if (outcome.status === 'ok') return { type: 'tool_result', tool_use_id: toolUseId, content: JSON.stringify(outcome.output ?? null) };
  return { type: 'tool_result', tool_use_id: toolUseId, content: `Not done: ${outcome.reason}`, is_error: true };
}

/** The turn's calls grouped by tool and input, in order of first appearance. */
function sameCalls(uses: ToolUseBlock[]): Map<ToolUseBlock, string[]> {
  const byKey = new Map<string, { call: ToolUseBlock; ids: string[] }>();
  for (const use of uses) {
    const key = `${use.name}\u0000${stableJson(use.input)}`;
    const entry = byKey.get(key);
    if (entry === undefined) byKey.set(key, { call: use, ids: [use.id] });
    else entry.ids.push(use.id);
  }
  return new Map([...byKey.values()].map(({ call, ids }) => [call, ids]));
}

/** What the model is told of the calls a crash left unknown: nothing when there are none. */
async function unknownEffectsNote(ctx: AgentContext): Promise<TextBlock[]> {
  const unknown = await ctx.unknownEffects();
  if (unknown.length === 0) return [];
  const lines = unknown.map((effect) => `- ${effect.tool} ${JSON.stringify(effect.input)} (started at ${new Date(effect.at).toISOString()})`);
  const text = `[vigil] These side-effect calls were interrupted by a crash; nobody knows whether they happened, and they are not run again until someone settles them:\n${lines.join('\n')}`;
  return [{ type: 'text', text: text.slice(0, MAX_EVENT_CHARS) }];
}

function toSession(stored: unknown): ToolLoopSession {
  if (typeof stored === 'object' && stored !== null && (stored as { kind?: unknown }).kind === 'vigil.tool-loop') return stored as ToolLoopSession;
  return { kind: 'vigil.tool-loop', history: [], waiting: null, decisions: [] };
}

/**
 * The last `max` turns, starting at a user turn that answers no tool call:
 * cutting between a call and its result would make the history invalid.
 */
export function bound(history: Turn[], max: number): Turn[] {
  if (history.length <= max) return history;
  let start = history.length - max;
  while (start < history.length && !(history[start]!.role === 'user' && history[start]!.content.every((block) => block.type === 'text'))) start++;
  return history.slice(start);
}

export function renderEvent(event: ClaimedEvent): string {
  const payload = event.payload as { text?: unknown } | null;
  if (event.source === 'chat' && typeof payload?.text === 'string') return payload.text.slice(0, MAX_EVENT_CHARS);
  const text = `[${event.source} ${event.sourceId}] ${JSON.stringify(event.payload)}`;
  return text.length > MAX_EVENT_CHARS ? `${text.slice(0, MAX_EVENT_CHARS)}…` : text;
}
