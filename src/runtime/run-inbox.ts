/**
 * One worker's turn at one inbox: due timers become events, then the lease
 * is taken and batches are claimed, run and finished until nothing is left,
 * then the lease is released so the next turn (here or in another process)
 * does not wait out its TTL.
 *
 *   runScheduler → acquire → [claimBatch → agent.run → finish → renew]* → release
 *
 * in two kinds of store call (contract.ts): acquireAndClaim takes the lease
 * and the first batch; finishAndClaim records a batch's outcome, renews the
 * lease and claims the next batch, or releases the lease when nothing is
 * left. A run of one batch is two calls, not four or five (acquire, claim,
 * finish, renew and claim again, release); on PostgreSQL each is a round
 * trip and a commit. A pool that is draining finishes with plain `finish`
 * and releases, claiming nothing more.
 *
 * Every write that matters is fenced by the store (R3); this module's job is
 * to notice a lost lease early (the heartbeat) and stop the agent, not to
 * guarantee anything the store already does.
 */
import { performance } from 'node:perf_hooks';
import type { Agent, ScreenVerdict } from '../agent/agent.js';
import type { Clock } from '../clock.js';
import type { ApprovalLink } from '../agent/approval-summary.js';
import type { Logger } from '../observability/logger.js';
import type { ProxyFetch } from '../agent/proxy-fetch.js';
import { isVigilError } from '../errors.js';
import { storableText } from '../store/index.js';
import type { ClaimedEvent, Inbox, RunOutcome, Usage } from '../store/contract.js';
import { priceUsage, type PriceTable } from '../agent/prices.js';
import { createAgentContext } from './agent-context.js';
import { finishReminders } from './approval-reminders.js';
import { callAgent, describeError, type AgentOutcome } from './call-agent.js';
import { LeaseHeartbeat } from './lease-heartbeat.js';
import { RunAbortedError } from './run-abort.js';
import type { RuntimeEventMap, RuntimeEvents } from '../events.js';

export interface RunInboxDeps {
  agent: Agent;
  events: RuntimeEvents;
  /** For what goes wrong around a run (a release that failed); what happens in one is an event. */
  logger?: Logger | undefined;
  holder: string;
  runTimeoutMs: number;
  /** Renew the lease this often while the agent runs; null: only between steps. */
  heartbeatMs: number | null;
  clock: Clock;
  approvalLink?: ((link: ApprovalLink) => string) | undefined;
  /** The reminder share for an approval that names none (config `approvals.remindAt`; null: none; default 0.75). */
  approvalRemindAt?: number | null | undefined;
  /** ctx.fetch through the credential proxy, when one is configured. */
  proxyFetch?: ProxyFetch | undefined;
  /** ctx.proxyUrl: that proxy's base URL. */
  proxyUrl?: string | undefined;
  /** The config's prices, over the built-in table (agent/prices.ts). */
  prices?: PriceTable | undefined;
  /** True once the pool stops claiming: finish the batch in hand, claim no more. */
  draining: () => boolean;
  /** Fired when the pool's grace period is over: abort the agent now. */
  shutdown: AbortSignal;
}

/** worked: claimed or fired something; idle: nothing to do; busy: another holder has the lease. */
export type InboxTurn = 'worked' | 'idle' | 'busy';

type RunLabel = RuntimeEventMap['run:finished']['outcome'];

/** A stored error is for people reading a dead letter, not a stack dump. */
const MAX_ERROR_CHARS = 2_000;

export async function runInbox(deps: RunInboxDeps, inbox: Inbox): Promise<InboxTurn> {
  const { events, holder } = deps;
  const inboxId = inbox.id;
  // R7: needs no lease; every worker may fire timers, the store makes it once.
  const fired = await inbox.runScheduler();
  if (deps.draining()) return fired > 0 ? 'worked' : 'idle';

  const start = await inbox.acquireAndClaim(holder);
  if (start === null) return 'busy';
  const { gen } = start;
  if (start.events.length === 0) {
    // Nothing to claim: the call released the lease already, unless events of
    // this generation were still running (a turn of ours that could not
    // finish them): end it, so the next claim puts them back at once.
    await release(deps, inbox, gen, gen);
    return fired > 0 ? 'worked' : 'idle';
  }
  let current: AbortController | null = null;
  let lostReported = false;
  const reportLost = (): void => {
    if (lostReported) return;
    lostReported = true;
    events.emit('lease:lost', { inboxId, gen });
  };
  const heartbeat = new LeaseHeartbeat(inbox, holder, gen, deps.heartbeatMs, () => {
    reportLost();
    current?.abort(new RunAbortedError('lease-lost', `the lease on ${inboxId} (gen ${gen}) was lost`));
  });

  /**
   * A batch's last finish. While the pool goes on it claims the next batch
   * in the same call (the lease renewed, or released when nothing is left);
   * draining or shutting down, it only finishes. The heartbeat holds still
   * meanwhile, and after it unless a next batch was claimed: a renewal
   * landing after the release would take the lease again.
   */
  const finishBatch: FinishBatch = async (eventIds, outcome) => {
    if (deps.draining() || deps.shutdown.aborted) return { finished: await inbox.finish(holder, gen, eventIds, outcome), next: null };
    await heartbeat.pause();
    const step = await inbox.finishAndClaim(holder, gen, eventIds, outcome);
    if (step.events.length > 0) heartbeat.resume(); // the run goes on with the next batch
    return { finished: step.finished, next: step.finished ? step.events : null };
  };

  let batches = 0;
  let released = false;
  try {
    heartbeat.start();
    for (let batch: ClaimedEvent[] | null = start.events; batch !== null && batch.length > 0; ) {
      batches += 1;
      current = new AbortController();
      const step = await runBatch(deps, inbox, gen, batch, current, reportLost, finishBatch);
      current = null;
      if (step.label === 'refused') break;
      if (step.next === undefined) {
        // The batch left nothing to finish (screened out): claim the next one here.
        if (deps.draining() || deps.shutdown.aborted) break;
        // Renew between steps, so a claim never starts on a lease about to lapse.
        if (!(await heartbeat.renew())) break;
        batch = await inbox.claimBatch(holder, gen);
        continue;
      }
      batch = step.next;
      // finishAndClaim claimed nothing: nothing of this generation runs any more, so it released the lease.
      released = batch !== null && batch.length === 0;
    }
  } finally {
    const newerGen = await heartbeat.stop();
    if (heartbeat.lost) await release(deps, inbox, gen, newerGen);
    else if (!released) await release(deps, inbox, gen, gen);
  }
  return batches > 0 || fired > 0 ? 'worked' : 'idle';
}

/** The outcome of a batch's last finish, and the next batch when the finish claimed one (null: it did not try). */
type FinishBatch = (eventIds: number[], outcome: RunOutcome) => Promise<{ finished: boolean; next: ClaimedEvent[] | null }>;

/** The batch's label, and what its last finish claimed (undefined: nothing was left to finish). */
async function runBatch(
  deps: RunInboxDeps,
  inbox: Inbox,
  gen: number,
  batch: ClaimedEvent[],
  controller: AbortController,
  reportLost: () => void,
  finishBatch: FinishBatch,
): Promise<{ label: RunLabel; next?: ClaimedEvent[] | null }> {
  const { events } = deps;
  const inboxId = inbox.id;
  const startedAt = performance.now();
  events.emit('run:started', { inboxId, gen, eventIds: batch.map((event) => event.id) });

  // Approvals' reminders are the runtime's to send, not the agent's (approval-reminders.ts).
  const forAgent = await finishReminders(deps, inbox, gen, batch);
  if (forAgent === null) return { label: 'refused' };
  const claimed = forAgent.length === 0 ? forAgent : await screen(deps, inbox, gen, forAgent);
  if (claimed === null) return { label: 'refused' };
  if (claimed.length === 0) return { label: 'nothing' };
  const eventIds = claimed.map((event) => event.id);

  const onShutdown = (): void => controller.abort(new RunAbortedError('shutdown', 'the worker is shutting down'));
  if (deps.shutdown.aborted) onShutdown();
  else deps.shutdown.addEventListener('abort', onShutdown, { once: true });
  const timeout = setTimeout(
    () => controller.abort(new RunAbortedError('timeout', `the run took longer than runTimeoutMs (${deps.runTimeoutMs} ms)`)),
    deps.runTimeoutMs,
  );
  let result: AgentOutcome;
  const run = createAgentContext({
    agent: deps.agent,
    inbox,
    events: claimed,
    signal: controller.signal,
    now: deps.clock(),
    approvalLink: deps.approvalLink,
    approvalRemindAt: deps.approvalRemindAt,
    proxyFetch: deps.proxyFetch,
    proxyUrl: deps.proxyUrl,
    lease: { holder: deps.holder, gen },
    prices: deps.prices,
  });
  try {
    await run.effects.settleAnswers();
    result = await callAgent(deps.agent, run.ctx);
  } finally {
    clearTimeout(timeout);
    deps.shutdown.removeEventListener('abort', onShutdown);
  }

  let { label, outcome } = toOutcome(result, deps.runTimeoutMs);
  // Spent whether or not the run succeeded: a failed run's tokens were still paid for.
  const usage = run.usage() ?? resultUsage(result, deps.prices);
  if (usage !== undefined) outcome = { ...outcome, usage };
  if (label === 'messages' || label === 'nothing') {
    // What the run keeps goes with its finish: saved together, or not at all.
    const session = run.session();
    const memory = run.memory();
    const approvals = run.approvals();
    const intents = run.effects.intents();
    outcome = {
      ...outcome,
      ...(session === undefined ? {} : { session }),
      ...(memory === undefined ? {} : { memory }),
      ...(approvals.length === 0 ? {} : { approvals }),
      ...(intents.length === 0 ? {} : { intents }),
    };
  }
  // The side-effect calls the run started are settled with its finish, whatever its outcome.
  const settled = run.effects.settlements();
  const withEffects = (o: RunOutcome): RunOutcome => (settled.length === 0 ? o : { ...o, effects: settled });
  outcome = withEffects(outcome);
  let finished: boolean;
  let next: ClaimedEvent[] | null;
  try {
    ({ finished, next } = await finishBatch(eventIds, outcome));
  } catch (error) {
    // The agent's result broke a store rule (an empty or oversized body, memory over its limit):
    // that is the agent's error, retried and eventually dead like a throw, never a crashed worker.
    const agentsFault = isVigilError(error, 'invalid_argument') || isVigilError(error, 'invalid_memory') || isVigilError(error, 'memory_full');
    if (!agentsFault || outcome.error !== undefined) throw error;
    ({ label, outcome } = { label: 'error', outcome: withEffects({ error: clip(`the agent's result was refused: ${describeError(error)}`), ...(usage === undefined ? {} : { usage }) }) });
    ({ finished, next } = await finishBatch(eventIds, outcome));
  }
  if (!finished) {
    label = 'refused';
    reportLost();
  }

  const decisions = [...run.ctx.tools.decisions];
  const durationMs = performance.now() - startedAt;
  events.emit('run:finished', {
    inboxId,
    gen,
    eventIds,
    outcome: label,
    durationMs,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(decisions.length === 0 ? {} : { decisions }),
    ...(usage === undefined ? {} : { usage }),
  });
  return { label, next };
}

/**
 * The agent's screening step, if it has one: rejected events go dead at once
 * with their reason (one finish per reason), before the run sees their text.
 * Returns the events left to run, or null when a finish was refused (the lease is gone).
 */
async function screen(deps: RunInboxDeps, inbox: Inbox, gen: number, claimed: ClaimedEvent[]): Promise<ClaimedEvent[] | null> {
  if (deps.agent.screen === undefined) return claimed;
  let verdict: ScreenVerdict;
  try {
    verdict = checkVerdict(await deps.agent.screen(claimed), claimed);
  } catch (error) {
    // A screen that fails is a failed run: retried, and dead in the end, like any other.
    const outcome = { error: clip(`screening failed: ${describeError(error)}`) };
    return (await inbox.finish(deps.holder, gen, claimed.map((event) => event.id), outcome)) ? [] : null;
  }
  const byReason = new Map<string, number[]>();
  for (const { eventId, reason } of verdict.reject) byReason.set(reason, [...(byReason.get(reason) ?? []), eventId]);
  for (const [reason, eventIds] of byReason) {
    if (!(await inbox.finish(deps.holder, gen, eventIds, { error: clip(`screened out: ${reason}`), dead: true }))) return null;
    deps.events.emit('run:screened', { inboxId: inbox.id, gen, eventIds, reason });
  }
  const rejected = new Set(verdict.reject.map((entry) => entry.eventId));
  return claimed.filter((event) => !rejected.has(event.id));
}

function checkVerdict(value: unknown, claimed: ClaimedEvent[]): ScreenVerdict {
  const reject = (value as { reject?: unknown } | null)?.reject;
  if (!Array.isArray(reject)) throw new Error('screen() must return { reject: [{ eventId, reason }] }');
  const ids = new Set(claimed.map((event) => event.id));
  for (const entry of reject as { eventId?: unknown; reason?: unknown }[]) {
    if (typeof entry?.eventId !== 'number' || !ids.has(entry.eventId)) throw new Error(`screen() rejected an event that is not in the batch: ${JSON.stringify(entry?.eventId)}`);
    if (typeof entry.reason !== 'string' || entry.reason === '') throw new Error('screen() must give a non-empty reason for each rejected event');
  }
  return { reject: reject as ScreenVerdict['reject'] };
}

function toOutcome(result: AgentOutcome, runTimeoutMs: number): { label: RunLabel; outcome: RunOutcome } {
  switch (result.kind) {
    case 'result':
      return 'messages' in result.result
        ? { label: 'messages', outcome: { messages: result.result.messages } }
        : { label: 'nothing', outcome: {} };
    case 'error':
      // A terminal error (TerminalError): no retry can fix it, so the events go dead now.
      if (result.terminal === true) return { label: 'dead', outcome: { error: clip(result.error), dead: true } };
      return { label: 'error', outcome: { error: clip(result.error) } };
    case 'aborted':
      if (result.reason === 'timeout') return { label: 'timeout', outcome: { error: `run timed out after ${runTimeoutMs} ms` } };
      if (result.reason === 'shutdown') return { label: 'error', outcome: { error: 'run interrupted: the worker shut down' } };
      // Finished anyway: the store refuses it (R3), which is what confirms the loss.
      return { label: 'refused', outcome: { error: 'run aborted: the lease was lost' } };
  }
}

/** After the last batch: release whichever lease we still hold. */
async function release(deps: RunInboxDeps, inbox: Inbox, gen: number, releaseGen: number | null): Promise<void> {
  if (releaseGen === null) return;
  try {
    await inbox.release(deps.holder, releaseGen);
  } catch (error) {
    // The lease lapses on its own after leaseTtlMs; nothing is lost, only time.
    deps.logger?.warn({ inboxId: inbox.id, gen, err: error }, 'could not release the lease');
  }
}

/**
 * An error as the store keeps it: bounded, and text both stores keep as
 * given (contract.ts): a NUL or a lone surrogate in an agent's error message
 * becomes U+FFFD rather than a refused finish.
 */
function clip(text: string): string {
  const trimmed = text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
  return trimmed === '' ? 'error' : storableText(trimmed);
}

/**
 * The usage an agent returned (checked by call-agent.ts) without recording
 * it: ctx.recordUsage prices each step as it comes, and what the run
 * recorded comes first; a returned total is priced the same way.
 */
function resultUsage(result: AgentOutcome, prices: PriceTable | undefined): Usage | undefined {
  const usage = result.kind === 'result' ? result.result.usage : undefined;
  return usage === undefined ? undefined : priceUsage(usage, prices);
}
