/**
 * Tools an agent's model may call, each call through a permission decision
 * (permissions.ts). A call the policy says to ask about becomes an approval
 * (R8) and an urgent message with the one-tap link; the run ends there, and
 * the answer comes back later as the ('approval', id) event, which
 * `runApproved` turns into the call itself, exactly once.
 *
 * Why exactly once holds: the approval id is derived from the asking run's
 * events and the call, so a retried run asks the same approval (and the
 * store keeps the first deadline, R8); the approved call's idempotency key
 * is derived from the approval event, so a resume that is retried after a
 * crash hands the tool the same key, and the API behind it (like Stripe's)
 * performs it once.
 */
import { idempotencyKeyFor } from './idempotency-key.js';
import type { ToolSpec } from './model.js';
import { modelToolName } from './tool-names.js';
import { decide, type Permissions } from './permissions.js';
import { inputProblems } from './tool-input.js';
import { stableJson } from '../store/index.js';
import type { AgentMemory } from './memory.js';
import type { ProxyFetch } from './proxy-fetch.js';
import type { ClaimedEvent, DecisionRecord, EffectIntent, EffectStart, OutboxMessage } from '../store/contract.js';

export interface ToolCall {
  readonly inboxId: string;
  /** The same on every retry of this call: hand it to the API that has the side effect. */
  readonly idempotencyKey: string;
  /** The approval a person gave for this call, or null for a call the policy allows. */
  readonly approvalId: string | null;
  readonly signal: AbortSignal;
  readonly fetch: ProxyFetch;
  readonly memory: AgentMemory;
}

export interface Tool<I extends Record<string, unknown> = Record<string, unknown>> extends ToolSpec {
  /**
   * Performs the call and returns what the model is told (JSON). A throw
   * fails the run, which is retried (R5) with the same idempotency keys;
   * return an error value instead for a failure the model should hear about.
   */
  run(input: I, call: ToolCall): Promise<unknown>;
  /** How an approval request reads to the person asked, e.g. "Refund order 42". */
  summary?(input: I): string;
  /**
   * The call changes the world (a refund, a sent mail): each call is kept in
   * the inbox's ledger of side effects (contract/effects.ts), `started`
   * before `run` is called and `confirmed` (it returned) or `failed` (it
   * threw) with the run's finish. A call a crash left `started` is unknown
   * and is never run again by the toolbox: the agent settles it first
   * (ctx.settleEffect, ctx.askAboutEffect).
   */
  sideEffect?: boolean;
}

export function defineTool<I extends Record<string, unknown>>(tool: Tool<I>): Tool {
  return tool as unknown as Tool;
}

export type ToolOutcome =
  | { status: 'ok'; output: unknown }
  | { status: 'denied'; reason: string }
  /** The input does not fit the tool's schema: nothing was run or asked. */
  | { status: 'invalid'; reason: string }
  | { status: 'declined'; reason: string }
  /** A side-effect call a crash left unknown (contract/effects.ts): not run again until it is settled. */
  | { status: 'unknown'; key: string; reason: string }
  | { status: 'deferred'; approvalId: string; message: OutboxMessage };

/** What an approval for a tool call carries; it comes back in the approval event's payload. */
export interface ToolAction {
  type: 'tool';
  tool: string;
  input: Record<string, unknown>;
  summary: string;
}

export interface ToolBox {
  /** The tools as a model sees them (names mapped: tool-names.ts). */
  readonly specs: readonly ToolSpec[];
  readonly decisions: readonly DecisionRecord[];
  /** Checks the policy, then runs the tool, refuses, or asks (deferred). `name` is Vigil's or the one the model was shown. */
  call(name: string, input: Record<string, unknown>): Promise<ToolOutcome>;
  /**
   * Records a decision this toolbox did not make: for an agent whose calls
   * are decided elsewhere (the Claude Agent SDK adapter's hook), so the
   * run's decisions reach the run:finished event, its log and metrics the
   * same way.
   */
  record(decision: Omit<DecisionRecord, 'at'>): void;
  /**
   * Runs a call a policy elsewhere already let through (the Claude Agent
   * SDK adapter's hook), under the key that policy gave it: through the
   * ledger of side effects for a `sideEffect` tool, as `call` runs one, so
   * an unknown call is refused and a confirmed one not repeated there too.
   */
  runGranted(name: string, input: Record<string, unknown>, grant: { idempotencyKey: string; approvalId: string | null }): Promise<Extract<ToolOutcome, { status: 'ok' | 'unknown' | 'denied' }>>;
  /** True for an ('approval', id) event this toolbox asked for. */
  isToolApproval(event: ClaimedEvent): boolean;
  /** The answer to an earlier ask: yes runs the call (once), no and expired refuse it. */
  runApproved(event: ClaimedEvent): Promise<Exclude<ToolOutcome, { status: 'deferred' }> & { approvalId: string }>;
}

export interface ToolBoxDeps {
  inboxId: string;
  events: readonly ClaimedEvent[];
  now: number;
  signal: AbortSignal;
  fetch: ProxyFetch;
  memory: AgentMemory;
  requestApproval(request: { id: string; expiresInMs: number; action: ToolAction; remindAt?: number | null }): Promise<{ link: string | null }>;
  /** The inbox's ledger of side effects, for the tools declared `sideEffect` (none: they run unrecorded). */
  effects?: EffectLedger | undefined;
}

/** What the toolbox needs of the ledger (the run's context gives it, fenced on the run's lease). */
export interface EffectLedger {
  /** Records the call `started` before it runs; throws when the run lost its lease (the call must not run). */
  start(intent: EffectIntent): Promise<EffectStart>;
  /** The call ended: settled with the run's finish. */
  ended(key: string, state: 'confirmed' | 'failed'): void;
  /** The call is asked about: `intended` under its approved call's key, with the run's finish (and its approval). */
  intend(intent: EffectIntent): void;
}

/** What the model hears for a call the ledger holds as unknown. */
export const UNKNOWN_EFFECT_REASON = 'this call may already have happened (a crash interrupted it); it is not run again until it is settled: settle it first';

const APPROVAL_PREFIX = 'tool-';

export function createToolBox(tools: readonly Tool[], permissions: Permissions, deps: ToolBoxDeps): ToolBox {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  // A model calls a tool by the name it was shown (tool-names.ts); everything else uses Vigil's.
  const vigilName = new Map(tools.map((tool) => [modelToolName(tool.name), tool.name]));
  const decisions: DecisionRecord[] = [];
  const record = (entry: Omit<DecisionRecord, 'at'>): void => void decisions.push({ ...entry, at: deps.now });
  const run = (tool: Tool, input: Record<string, unknown>, idempotencyKey: string, approvalId: string | null): Promise<unknown> =>
    tool.run(input, { inboxId: deps.inboxId, idempotencyKey, approvalId, signal: deps.signal, fetch: deps.fetch, memory: deps.memory });
  const perform = (tool: Tool, input: Record<string, unknown>, idempotencyKey: string, approvalId: string | null = null): Promise<Performed> =>
    tool.sideEffect === true && deps.effects !== undefined
      ? performRecorded(deps.effects, startedHere, () => run(tool, input, idempotencyKey, approvalId), { key: idempotencyKey, tool: tool.name, input })
      : run(tool, input, idempotencyKey, approvalId).then((output) => ({ status: 'ok', output }));
  // Keys this run started: the same call twice in one run is the run's own, not an unknown one.
  const startedHere = new Set<string>();

  return {
    specs: tools.map(({ name, description, inputSchema }) => ({ name: modelToolName(name), description, inputSchema })),
    decisions,
    record,

    async call(calledName, input) {
      const name = byName.has(calledName) ? calledName : (vigilName.get(calledName) ?? calledName);
      const tool = byName.get(name);
      const decision = decide(permissions, name, tool !== undefined);
      if (decision.kind === 'deny' || tool === undefined) {
        const reason = decision.kind === 'deny' ? decision.reason : `there is no tool named ${JSON.stringify(name)}`;
        record({ tool: name, decision: 'deny', reason });
        return { status: 'denied', reason };
      }
      // The same call gives the same key (and the same approval) on every retry of the run.
      const problems = inputProblems(tool, input);
      if (problems !== null) {
        const reason = `the input does not fit ${name}'s schema: ${problems}`;
        record({ tool: name, decision: 'invalid', reason });
        return { status: 'invalid', reason };
      }
      const callKey = `${name}\u0000${stableJson(input)}`;
      if (decision.kind === 'allow') {
        record({ tool: name, decision: 'allow' });
        return perform(tool, input, idempotencyKeyFor(deps.inboxId, deps.events, `tool\u0000${callKey}`));
      }
      // Derived from this run's events and the call: a retried run asks the same approval.
      const approvalId = APPROVAL_PREFIX + idempotencyKeyFor(deps.inboxId, deps.events, `ask\u0000${callKey}`);
      const summary = clip(tool.summary?.(input) ?? `${name} ${stableJson(input)}`);
      const action: ToolAction = { type: 'tool', tool: name, input, summary };
      const { link } = await deps.requestApproval({
        id: approvalId,
        expiresInMs: decision.expiresInMs,
        action,
        ...(decision.remindAt === undefined ? {} : { remindAt: decision.remindAt }),
      });
      // Under the key the approved call will run with (runApproved's: from the answer's event, ('approval', id)).
      if (tool.sideEffect === true) deps.effects?.intend({ key: approvedCallKey(deps.inboxId, approvalId), tool: name, input });
      record({ tool: name, decision: 'ask', approvalId });
      const body = link === null ? `Approve? ${summary} (approval ${approvalId})` : `Approve? ${summary}\n${link}`;
      // Urgent: a question must not wait out the outbox's pacing.
      return { status: 'deferred', approvalId, message: { body, urgent: true } };
    },

    async runGranted(name, input, grant) {
      const tool = byName.get(name);
      if (tool === undefined) return { status: 'denied', reason: `there is no tool named ${JSON.stringify(name)}` };
      return perform(tool, input, grant.idempotencyKey, grant.approvalId);
    },

    isToolApproval(event) {
      return event.source === 'approval' && event.sourceId.startsWith(APPROVAL_PREFIX) && toolAction(event) !== null;
    },

    async runApproved(event) {
      const approvalId = event.sourceId;
      const action = toolAction(event);
      const answer = (event.payload as { answer?: unknown } | null)?.answer;
      if (action === null) throw new Error(`event ${event.id} is not a tool approval`);
      if (answer !== 'yes') {
        const decision = answer === 'no' ? 'declined' : 'expired';
        const reason = answer === 'no' ? 'the user declined this action' : 'nobody answered the approval request in time; the action was not taken';
        record({ tool: action.tool, decision, approvalId, reason });
        return { status: 'declined', reason, approvalId };
      }
      const tool = byName.get(action.tool);
      // The policy is checked again: a tool denied since it was asked about stays undone.
      const now = decide(permissions, action.tool, tool !== undefined);
      if (now.kind === 'deny' || tool === undefined) {
        const reason = now.kind === 'deny' ? now.reason : `there is no tool named ${JSON.stringify(action.tool)}`;
        record({ tool: action.tool, decision: 'deny', approvalId, reason });
        return { status: 'denied', reason, approvalId };
      }
      record({ tool: action.tool, decision: 'approved', approvalId });
      // Keyed by the approval event: the same key on every retry of this resume.
      return { ...(await perform(tool, action.input, approvedCallKey(deps.inboxId, approvalId), approvalId)), approvalId };
    },
  };
}

/** The key of an approved call: derived from its answer's event alone, ('approval', id), so the same on every retry of the resume. */
function approvedCallKey(inboxId: string, approvalId: string): string {
  return idempotencyKeyFor(inboxId, [{ id: 0, source: 'approval', sourceId: approvalId }], 'tool');
}

export type Performed = Extract<ToolOutcome, { status: 'ok' | 'unknown' | 'denied' }>;

/**
 * A side-effect call through the ledger: `started` is committed before the
 * tool runs (the ledger throws, and the tool does not run, when the run lost
 * its lease); an unknown key is refused, a confirmed one not repeated; the
 * tool's return confirms it and its throw fails it, with the run's finish.
 */
async function performRecorded(ledger: EffectLedger, startedHere: Set<string>, run: () => Promise<unknown>, intent: EffectIntent): Promise<Performed> {
  if (!startedHere.has(intent.key)) {
    const start = await ledger.start(intent);
    if (start === 'unknown') return { status: 'unknown', key: intent.key, reason: UNKNOWN_EFFECT_REASON };
    if (start === 'confirmed') return { status: 'denied', reason: 'this call already happened (the ledger of side effects has it confirmed); it is not run twice' };
    startedHere.add(intent.key);
  }
  let output: unknown;
  try {
    output = await run();
  } catch (error) {
    ledger.ended(intent.key, 'failed');
    throw error;
  }
  ledger.ended(intent.key, 'confirmed');
  return { status: 'ok', output };
}

function toolAction(event: ClaimedEvent): ToolAction | null {
  const action = (event.payload as { action?: unknown } | null)?.action as Partial<ToolAction> | undefined;
  if (action?.type !== 'tool' || typeof action.tool !== 'string' || typeof action.input !== 'object' || action.input === null) return null;
  return action as ToolAction;
}

/** JSON with object keys sorted (the store's, which hashes a side effect's input the same way). */
export { stableJson };

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
