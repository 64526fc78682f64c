/**
 * Every tool call Claude Code makes is decided here, in Vigil's PreToolUse
 * hook, by Vigil's policy (permissions.ts), under Vigil's names:
 *
 *  - allow: the call goes ahead; a Vigil tool's call gets its idempotency
 *    key (the same on every retry of the run, as toolAgent's);
 *  - deny, or a tool nobody named: refused with the reason;
 *  - ask: a durable Vigil approval (ctx.requestApproval, saved with the
 *    run's finish) holding the tool, its exact input and the input's hash,
 *    and the SDK session id; the hook answers `defer`, which ends the query
 *    with `tool_deferred`, and the run sends the question;
 *  - the answer resumes the session (agent.ts) and fires the hook again for
 *    the same call: yes allows exactly the stored input (a different one is
 *    refused), no and expired refuse it.
 *
 * A turn with several calls, one of which would be asked: `defer` holds one
 * call only (turn-watcher.ts), so none of the turn's calls runs; each is
 * refused with a reason that asks the model to make the call that needs a
 * person in a turn of its own. Nothing of the turn ran, so nothing can run
 * twice, and the model's next turn is decided afresh.
 *
 * The hook is registered with `onFailure: 'block'`: if it throws (a tool's
 * summary that throws, a cancelled wait), the call is blocked, not let
 * through. `canUseTool` is the backstop for a call that somehow reaches the
 * SDK's permission prompt: it refuses at once and never waits.
 */
import { createHash } from 'node:crypto';
import type { CanUseTool, HookCallback, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import { idempotencyKeyFor } from '../../agent/idempotency-key.js';
import { decide, type Decision, type Permissions } from '../../agent/permissions.js';
import { inputProblems } from '../../agent/tool-input.js';
import { stableJson, type Tool, type ToolAction } from '../../agent/tools.js';
import type { AgentContext } from '../../agent/agent.js';
import type { ClaimedEvent, DecisionRecord, OutboxMessage } from '../../store/contract.js';
import type { WaitingCall } from './session.js';
import type { ToolNames } from './tool-names.js';
import type { TurnWatcher } from './turn-watcher.js';

/** What an approval for a call of Claude Code's carries (it comes back in the answer event's payload). */
export interface SdkToolAction extends ToolAction {
  inputSha256: string;
  sessionId: string | null;
}

/** A call the hook let through: the Vigil tool server runs only these. */
export interface Grant {
  idempotencyKey: string;
  approvalId: string | null;
}

export interface PolicyDeps {
  ctx: AgentContext;
  permissions: Permissions;
  vigilTools: ReadonlyMap<string, Tool>;
  names: ToolNames;
  turns: TurnWatcher;
  /** The call the session waits on, and the event answering it (this run's), if any. */
  waiting: WaitingCall | null;
  answer: ClaimedEvent | null;
  sessionId: () => string | null;
  /** How long a hook waits for its turn to finish streaming. */
  turnTimeoutMs: number;
  /** Resolves once the approved call's tool can run (Vigil's tool server connected). */
  toolReady(tool: string): Promise<void>;
}

export interface Policy {
  hook: HookCallback;
  /** A PostToolUse / PostToolUseFailure hook: notes which calls Claude Code really ran. */
  ran: HookCallback;
  /**
   * True when the call the session waited on was answered yes and the hook
   * did not refuse it, but Claude Code never ran it: it refused the call
   * itself (its tool not connected yet), sometimes without asking the hook.
   */
  approvedButNotRun(): boolean;
  /** After the query: records a no or an expiry Claude Code acted on without asking the hook. */
  settle(): void;
  canUseTool: CanUseTool;
  /** Vigil name + input → the grant for it (set by the hook's allow). */
  grantFor(tool: string, input: Record<string, unknown>): Grant | undefined;
  /** The call this run asked about (the query then ended with tool_deferred), or null. */
  readonly asked: { call: WaitingCall; message: OutboxMessage } | null;
  readonly decisions: readonly DecisionRecord[];
}

export const APPROVAL_PREFIX = 'sdk-tool-';

export function sha256(input: Record<string, unknown>): string {
  return createHash('sha256').update(stableJson(input)).digest('hex');
}

export function createPolicy(deps: PolicyDeps): Policy {
  const { ctx, permissions, vigilTools, names } = deps;
  const decisions: DecisionRecord[] = [];
  const grants = new Map<string, Grant>();
  const ranCalls = new Set<string>();
  // Set when the hook refused the call the session waited on (no, expired, another input, denied since).
  let waitingRefused = false;
  let waitingDecided = false;
  let asked: Policy['asked'] = null;
  const record = (entry: Omit<DecisionRecord, 'at'>): void => {
    decisions.push({ ...entry, at: ctx.now });
    // And on the run's own record: the run:finished event, its log line and metrics.
    ctx.tools.record(entry);
  };
  const callKey = (tool: string, input: Record<string, unknown>): string => `${tool}\u0000${stableJson(input)}`;
  const known = (sdkName: string): boolean => !sdkName.startsWith('mcp__vigil__') || names.isVigilTool(sdkName);
  const policyOf = (sdkName: string): Decision => decide(permissions, names.vigilName(sdkName), known(sdkName));

  const answerWaiting = async (tool: string, input: Record<string, unknown>, waiting: WaitingCall): Promise<HookJSONOutput> => {
    const answer = (deps.answer?.payload as { answer?: unknown } | null)?.answer;
    const { approvalId } = waiting;
    waitingRefused = true;
    waitingDecided = true;
    if (answer === 'no') return refuse(tool, 'the user declined this action', 'declined', approvalId);
    if (answer !== 'yes') return refuse(tool, 'nobody answered the approval request in time; the action was not taken', 'expired', approvalId);
    // The exact call that was approved, or nothing: a person approved this input, not another.
    if (tool !== waiting.tool || sha256(input) !== waiting.inputSha256) {
      return refuse(tool, `the approval was for ${waiting.tool} with another input; this call was not approved`, 'deny', approvalId);
    }
    // The policy is read again: a tool denied since it was asked about stays undone.
    const now = decide(permissions, tool, true);
    if (now.kind === 'deny') return refuse(tool, now.reason, 'deny', approvalId);
    waitingRefused = false;
    // On a resume the call comes back at once, often before Claude Code has connected the tool's server.
    await deps.toolReady(tool);
    record({ tool, decision: 'approved', approvalId });
    // Keyed by the answer event: a resume retried after a crash hands the tool the same key.
    grants.set(callKey(tool, input), { idempotencyKey: idempotencyKeyFor(ctx.inboxId, [deps.answer!], 'tool'), approvalId });
    return decision('allow', 'approved by the user');
  };

  const refuse = (tool: string, reason: string, kind: DecisionRecord['decision'] = 'deny', approvalId?: string): HookJSONOutput => {
    record({ tool, decision: kind, reason, ...(approvalId === undefined ? {} : { approvalId }) });
    return decision('deny', reason);
  };

  const hook: HookCallback = async (hookInput, _toolUseId, { signal }) => {
    if (hookInput.hook_event_name !== 'PreToolUse') return {};
    const sdkName = hookInput.tool_name;
    const tool = names.vigilName(sdkName);
    const input = (typeof hookInput.tool_input === 'object' && hookInput.tool_input !== null ? hookInput.tool_input : {}) as Record<string, unknown>;
    const { waiting } = deps;
    if (waiting !== null && hookInput.tool_use_id === waiting.toolUseId) return answerWaiting(tool, input, waiting);

    const policy = policyOf(sdkName);
    if (policy.kind === 'deny') return refuse(tool, policy.reason);
    const own = vigilTools.get(tool);
    const problems = own === undefined ? null : inputProblems(own, input);
    if (problems !== null) return refuse(tool, `the input does not fit ${tool}'s schema: ${problems}`, 'invalid');

    // Decided knowing the whole turn: see turn-watcher.ts. A wait that fails or is cancelled throws, and blocks.
    const turn = await deps.turns.callsWith(hookInput.tool_use_id, signal.aborted ? signal : AbortSignal.any([signal, ctx.signal]), deps.turnTimeoutMs);
    if (turn.length > 1 && turn.some((call) => policyOf(call.name).kind === 'ask')) {
      const asking = [...new Set(turn.filter((call) => policyOf(call.name).kind === 'ask').map((call) => names.vigilName(call.name)))].join(', ');
      return refuse(
        tool,
        `not run: this turn called ${turn.length} tools and ${asking} needs a person's approval, which holds one call at a time. ` +
          'Call the tool that needs approval alone, in a turn of its own, then the others.',
      );
    }
    const key = callKey(tool, input);
    if (policy.kind === 'allow') {
      record({ tool, decision: 'allow' });
      grants.set(key, { idempotencyKey: idempotencyKeyFor(ctx.inboxId, ctx.events, `tool\u0000${key}`), approvalId: null });
      return decision('allow', 'allowed by policy');
    }
    // Derived from this run's events and the call: a retried run asks the same approval.
    const approvalId = APPROVAL_PREFIX + idempotencyKeyFor(ctx.inboxId, ctx.events, `ask\u0000${key}`);
    const summary = clip(own?.summary?.(input) ?? `${tool} ${stableJson(input)}`);
    const inputSha256 = sha256(input);
    const action: SdkToolAction = { type: 'tool', tool, input, summary, inputSha256, sessionId: deps.sessionId() };
    const remindAt = policy.remindAt === undefined ? {} : { remindAt: policy.remindAt }; // the tool's ask.remindAt, else the service's
    const { link } = await ctx.requestApproval({ id: approvalId, expiresInMs: policy.expiresInMs, action, ...remindAt });
    record({ tool, decision: 'ask', approvalId });
    const body = link === null ? `Approve? ${summary} (approval ${approvalId})` : `Approve? ${summary}\n${link}`;
    // Urgent: a question must not wait out the outbox's pacing.
    asked = { call: { approvalId, toolUseId: hookInput.tool_use_id, tool, input, inputSha256, arrived: [] }, message: { body, urgent: true } };
    return decision('defer', 'waiting for a person to approve');
  };

  const canUseTool: CanUseTool = (toolName) => {
    const reason = `${names.vigilName(toolName)} was not allowed by Vigil's policy`;
    record({ tool: names.vigilName(toolName), decision: 'deny', reason });
    return Promise.resolve({ behavior: 'deny', message: reason, decisionClassification: 'config' });
  };

  const ran: HookCallback = (hookInput) => {
    if (hookInput.hook_event_name === 'PostToolUse' || hookInput.hook_event_name === 'PostToolUseFailure') ranCalls.add(hookInput.tool_use_id);
    return Promise.resolve({});
  };

  return {
    hook,
    ran,
    settle() {
      const { waiting } = deps;
      const answer = (deps.answer?.payload as { answer?: unknown } | null)?.answer;
      if (waiting === null || waitingDecided || answer === 'yes') return;
      // The call did not run either way (the hook's refusal or Claude Code's own); the record says why.
      const reason = answer === 'no' ? 'the user declined this action' : 'nobody answered the approval request in time; the action was not taken';
      record({ tool: waiting.tool, decision: answer === 'no' ? 'declined' : 'expired', reason, approvalId: waiting.approvalId });
    },
    approvedButNotRun: () => {
      const answer = (deps.answer?.payload as { answer?: unknown } | null)?.answer;
      return deps.waiting !== null && answer === 'yes' && !waitingRefused && !ranCalls.has(deps.waiting.toolUseId);
    },
    canUseTool,
    grantFor: (tool, input) => grants.get(callKey(tool, input)),
    get asked() {
      return asked;
    },
    decisions,
  };
}

function decision(permissionDecision: 'allow' | 'deny' | 'defer', reason: string): HookJSONOutput {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: reason } };
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
