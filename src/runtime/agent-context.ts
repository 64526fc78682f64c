/**
 * The AgentContext one run sees. Its store calls are not fenced by the
 * lease (timers and approvals have no generation), so once the run's signal
 * has fired they refuse: a run that lost its inbox must not schedule or ask
 * anything on behalf of events another worker now owns.
 */
import { idempotencyKeyFor, type AgentContext } from '../agent/agent.js';
import { describeAction, type ApprovalLink } from '../http/approval-links.js';
import type { ClaimedEvent, Inbox } from '../store/contract.js';

export interface ContextDeps {
  inbox: Inbox;
  events: readonly ClaimedEvent[];
  signal: AbortSignal;
  now: number;
  approvalLink?: ((link: ApprovalLink) => string) | undefined;
}

export function createAgentContext({ inbox, events, signal, now, approvalLink }: ContextDeps): AgentContext {
  const inboxId = inbox.id;
  const live = (): void => signal.throwIfAborted();
  return {
    inboxId,
    events,
    signal,
    now,
    idempotencyKey: (name, event) => idempotencyKeyFor(inboxId, event === undefined ? events : [event], name),
    async requestApproval(request) {
      live();
      await inbox.requestApproval(request);
      // The store keeps the first request's deadline; a repeated ask signs a
      // later expiry into the link, which the store still refuses past the
      // real one (R8), so the link can never outlive the approval.
      if (approvalLink === undefined) return { link: null };
      // The summary is signed into the link so the confirm page can say what is asked.
      const summary = describeAction(request.action);
      return { link: approvalLink({ inboxId, approvalId: request.id, expiresAt: now + request.expiresInMs, summary }) };
    },
    async addTimer(timer) {
      live();
      await inbox.addTimer(timer);
    },
    stats: () => inbox.stats(),
  };
}
