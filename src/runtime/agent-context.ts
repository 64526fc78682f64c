/**
 * The AgentContext one run sees. Its store calls are not fenced by the
 * lease (timers and approvals have no generation), so once the run's signal
 * has fired they refuse: a run that lost its inbox must not schedule or ask
 * anything on behalf of events another worker now owns.
 */
import type { Agent, AgentContext } from '../agent/agent.js';
import { idempotencyKeyFor } from '../agent/idempotency-key.js';
import { StagedMemory } from '../agent/memory.js';
import { StagedSession } from '../agent/session.js';
import { createToolBox } from '../agent/tools.js';
import { VigilError } from '../errors.js';
import { refuseOperatorOnly, validateApprovalRequest } from '../store/index.js';
import { describeAction, type ApprovalLink } from '../agent/approval-summary.js';
import type { ProxyFetch } from '../agent/proxy-fetch.js';
import { addUsage, checkUsage } from '../agent/usage.js';
import { priceUsage, type PriceTable } from '../agent/prices.js';
import { RUNTIME_DEFAULTS } from './defaults.js';
import { createRunEffects, type RunEffects } from './run-effects.js';
import type { ApprovalRequest, ClaimedEvent, Inbox, InboxSettings, MemoryChanges, RunBudget, Usage } from '../store/contract.js';

export interface ContextDeps {
  agent: Agent;
  inbox: Inbox;
  events: readonly ClaimedEvent[];
  signal: AbortSignal;
  now: number;
  approvalLink?: ((link: ApprovalLink) => string) | undefined;
  /** The reminder share for an approval that names none (config `approvals.remindAt`; null: none). */
  approvalRemindAt?: number | null | undefined;
  /** ctx.fetch: through the credential proxy, when the service has one configured. */
  proxyFetch?: ProxyFetch | undefined;
  /** ctx.proxyUrl: that proxy's base URL. */
  proxyUrl?: string | undefined;
  /** The run's lease, which the ledger of side effects fences each call's start on (run-effects.ts). */
  lease?: { holder: string; gen: number } | undefined;
  /** The config's prices, over the built-in table (agent/prices.ts). */
  prices?: PriceTable | undefined;
}

/** The context, and what its run leaves to be saved with the finish. */
export interface RunContext {
  ctx: AgentContext;
  /** The session to save (undefined: unchanged). */
  session(): unknown;
  /** The approvals the run asked for, to request with its finish. */
  approvals(): ApprovalRequest[];
  memory(): MemoryChanges | undefined;
  /** What the run recorded with ctx.recordUsage, each step priced, or undefined. */
  usage(): Usage | undefined;
  /** The side-effect calls this run started, as they ended, to settle with its finish; and the answers to settle before it runs. */
  effects: Pick<RunEffects, 'settlements' | 'intents' | 'settleAnswers'>;
}

/** An approval that names no reminder gets the service's (RUNTIME_DEFAULTS.approvalRemindAt unless configured); null names none. */
function withReminder(request: ApprovalRequest, fallback: number | null | undefined): ApprovalRequest {
  if (request.remindAt !== undefined) return request;
  return { ...request, remindAt: fallback === undefined ? RUNTIME_DEFAULTS.approvalRemindAt : fallback };
}

const noProxy: ProxyFetch = () =>
  Promise.reject(new VigilError('invalid_options', 'ctx.fetch needs the credential proxy: set "proxy": { "url": ... } in the service config'));

export function createAgentContext({ agent, inbox, events, signal, now, approvalLink, approvalRemindAt, proxyFetch, proxyUrl, lease, prices }: ContextDeps): RunContext {
  const inboxId = inbox.id;
  const live = (): void => signal.throwIfAborted();
  const memory = new StagedMemory(inbox);
  const session = new StagedSession(inbox);
  const fetch = proxyFetch ?? noProxy;
  const approvals = new Map<string, ApprovalRequest>();
  const requestApproval = async (request: ApprovalRequest): Promise<{ link: string | null }> => {
    live();
    // Asked with the run's finish, in its transaction (RunOutcome.approvals): a run that
    // fails or loses its lease asks nothing, so no approval exists whose question was never sent.
    const checked = validateApprovalRequest(request, Number.MAX_SAFE_INTEGER);
    if (!approvals.has(checked.id)) approvals.set(checked.id, withReminder(request, approvalRemindAt));
    // The store keeps the first request's deadline; a repeated ask signs a
    // later expiry into the link, which the store still refuses past the
    // real one (R8), so the link can never outlive the approval.
    if (approvalLink === undefined) return { link: null };
    // The summary is signed into the link so the confirm page can say what is asked.
    const summary = describeAction(request.action);
    return { link: approvalLink({ inboxId, approvalId: request.id, expiresAt: now + request.expiresInMs, summary }) };
  };
  const effects = createRunEffects({ inbox, lease, events, live, requestApproval });
  const tools = createToolBox(agent.tools, agent.permissions, { inboxId, events, now, signal, fetch, memory, requestApproval, effects: effects.ledger });
  let settings: Promise<InboxSettings> | undefined;
  let budget: Promise<RunBudget | null> | undefined;
  let usage: Usage | undefined;
  const ctx: AgentContext = {
    inboxId,
    events,
    signal,
    now,
    idempotencyKey: (name, event) => idempotencyKeyFor(inboxId, event === undefined ? events : [event], name),
    requestApproval,
    async addTimer(timer) {
      live();
      await inbox.addTimer(timer);
    },
    stats: () => inbox.stats(),
    // Read when first awaited, not for every run: most runs never look.
    get settings() {
      settings ??= inbox.settings();
      return settings;
    },
    // Read when first awaited: an agent that does not cap its runs costs the store nothing.
    get budget() {
      budget ??= inbox.runBudget();
      return budget;
    },
    async updateSettings(patch) {
      live();
      // An agent may change its person's terms, never its own quota or budget: `limits` and `budget` are the operator's.
      refuseOperatorOnly(patch);
      const updated = await inbox.updateSettings(patch);
      settings = Promise.resolve(updated);
      return updated;
    },
    memory,
    session,
    tools,
    fetch,
    proxyUrl: proxyUrl ?? null,
    recordUsage(step) {
      // Priced as it arrives, by its own model: a run that mixes models sums priced parts.
      usage = addUsage(usage, priceUsage(checkUsage(step), prices));
    },
    ...effects.verbs,
  };
  return { ctx, session: () => session.pending(), memory: () => memory.pending(), approvals: () => [...approvals.values()], usage: () => usage, effects };
}
