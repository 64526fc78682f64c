/**
 * `claudeAgentSdk`: a Claude Agent SDK agent (`query()`) inside a Vigil
 * run. Each run turns its events into a prompt, runs the query in Claude
 * Code (a child process: spawn-child.ts) under Vigil's policy
 * (policy-hook.ts), and ends as Vigil runs end:
 *
 *  - the final reply goes out as the run's message (or nothing, when there
 *    is nothing to say);
 *  - a call the policy asks about ends the query (`tool_deferred`), and the
 *    run sends the question; the session saved with the finish says which
 *    approval answers which call;
 *  - the answer arrives as the ('approval', id) event and resumes the SDK
 *    session from the transcript kept in the inbox (session.ts), in this
 *    process or another, where the hook decides that one call.
 */
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Options, Query, SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { TerminalError, type Agent, type AgentContext } from '../../agent/agent.js';
import { VigilError } from '../../errors.js';
import { compileToolSchema } from '../../agent/tool-input.js';
import { checkToolNames } from '../../agent/tool-names.js';
import { validatePermissions } from '../../agent/permissions.js';
import { renderEvent } from '../../agent/tool-loop.js';
import type { Tool } from '../../agent/tools.js';
import type { ClaimedEvent, DecisionRecord, OutboxMessage, RunBudget } from '../../store/contract.js';
import { loadPeer } from '../load-peer.js';
import { childDirs, childEnv } from './child-env.js';
import { checkAdapterOptions, checkSdkOptions, VIGIL_SERVER, type ClaudeAgentSdkOptions } from './options.js';
import { APPROVAL_PREFIX, createPolicy, type Policy } from './policy-hook.js';
import { toSession, transcriptStore, type SdkSession } from './session.js';
import { childHandle } from './spawn-child.js';
import { servedAs, toolNames } from './tool-names.js';
import { TurnWatcher, type StreamEvent } from './turn-watcher.js';
import { usageOf, usageSince } from './usage.js';

const KEPT_DECISIONS = 50;
/** How long a hook waits for its turn to finish streaming before it blocks the call. */
const TURN_TIMEOUT_MS = 120_000;

/** A resume Claude Code ended without carrying out the answered call: nothing of it is saved, and it is tried again. */
class ResumeNotDone extends Error {}

/** Resumes tried in one run before the run fails (and its event spends an attempt). */
const RESUMES_PER_RUN = 3;

export function claudeAgentSdk(options: ClaudeAgentSdkOptions): Agent {
  if (typeof options !== 'object' || options === null) throw new TypeError('claudeAgentSdk needs { options, permissions }');
  const sdkOptions = checkSdkOptions(options.options);
  const { proxyRoute, childEnv: givenEnv, maxTranscriptBytes } = checkAdapterOptions(options);
  const tools = options.tools ?? [];
  // Open: the SDK's built-in and MCP tools are not known up front.
  const permissions = validatePermissions(options.permissions, tools.map((tool) => tool.name), { open: true });
  const workDir = options.workDir ?? join(tmpdir(), 'vigil-claude-agent-sdk');
  const prompt = options.prompt ?? ((events: readonly ClaimedEvent[]) => events.map(renderEvent).join('\n\n'));
  // Built-in tools are offered only when the policy names them (and does not deny them).
  const builtIn = Object.entries(permissions)
    .filter(([name, permission]) => !name.includes('.') && !name.includes('*') && !name.startsWith('mcp__') && permission !== 'deny' && !tools.some((tool) => tool.name === name))
    .map(([name]) => name);

  checkToolNames(tools.map((tool) => tool.name));
  for (const tool of tools) compileToolSchema(tool);
  // Vigil's tools are served on servers named for them (tool-names.ts): one of the SDK's own by that name would hide them.
  for (const server of new Set(tools.map((tool) => servedAs(tool.name).server))) {
    if (Object.hasOwn(sdkOptions.mcpServers ?? {}, server)) {
      throw new VigilError('invalid_options', `claudeAgentSdk: options.mcpServers.${server} has the name Vigil's own ${server === VIGIL_SERVER ? 'tools are' : `${server}.* tools are`} served as; name yours otherwise`);
    }
  }

  // Not defineAgent: it checks the policy against `tools` alone, and this policy also names the SDK's tools.
  return {
    name: options.name ?? 'claude-agent-sdk',
    tools,
    permissions,
    async run(ctx) {
      const sdk = await loadPeer('@anthropic-ai/claude-agent-sdk', 'claude-agent-sdk', () => import('@anthropic-ai/claude-agent-sdk'));
      if (ctx.proxyUrl === null) {
        throw new TerminalError('claudeAgentSdk needs the credential proxy ("proxy": { "url": … } in the service config): the model key reaches Claude Code only through it');
      }
      const session = toSession(await ctx.session.get());
      const { answer, arrived } = sortEvents(ctx.events, session);
      let resumeText: string;
      if (session.waiting !== null) {
        if (answer === null) {
          // The model cannot go on until its call is answered: what arrived waits with it.
          session.waiting.arrived.push(...(arrived.length > 0 ? [prompt(arrived)] : []));
          ctx.session.set(session);
          return { nothing: true };
        }
        resumeText = [...session.waiting.arrived, ...(arrived.length > 0 ? [prompt(arrived)] : [])].join('\n\n');
      } else {
        if (arrived.length === 0) return { nothing: true }; // nothing new: nothing to say
        resumeText = prompt(arrived);
      }

      const setup: RunSetup = {
        sdkOptions,
        tools,
        permissions,
        builtIn,
        dirs: childDirs(workDir, inboxKey(ctx.inboxId)),
        modelBaseUrl: `${ctx.proxyUrl.replace(/\/+$/, '')}/${proxyRoute}`,
        givenEnv,
      };
      // A resume Claude Code did not carry out (resumeNotDone) is tried again here, from the session as
      // it was loaded, before it costs the event an attempt: each try is a coin Claude Code tosses.
      const loaded = structuredClone(session);
      let outcome: Awaited<ReturnType<typeof runQuery>>;
      for (let attempt = 1; ; attempt++) {
        try {
          outcome = await runQuery(sdk, ctx, session, answer, resumeText, setup);
          break;
        } catch (error) {
          if (!(error instanceof ResumeNotDone) || attempt >= RESUMES_PER_RUN || ctx.signal.aborted) throw error;
          Object.assign(session, structuredClone(loaded));
        }
      }
      session.decisions = [...session.decisions, ...outcome.decisions].slice(-KEPT_DECISIONS);
      // A conversation past its size is let go between calls, never while one waits on its transcript.
      if (session.waiting === null && Buffer.byteLength(JSON.stringify(session.transcript)) > maxTranscriptBytes) {
        Object.assign(session, { sessionId: null, transcript: {}, usageSoFar: null });
      }
      ctx.session.set(session);
      const usage = outcome.usage === undefined ? {} : { usage: outcome.usage };
      return outcome.messages.length > 0 ? { messages: outcome.messages, ...usage } : { nothing: true, ...usage };
    },
  };
}

interface RunSetup {
  sdkOptions: Options;
  tools: readonly Tool[];
  permissions: ReturnType<typeof validatePermissions>;
  builtIn: string[];
  dirs: ReturnType<typeof childDirs>;
  modelBaseUrl: string;
  givenEnv: Record<string, string>;
}

async function runQuery(
  sdk: typeof import('@anthropic-ai/claude-agent-sdk'),
  ctx: AgentContext,
  session: SdkSession,
  answer: ClaimedEvent | null,
  text: string,
  setup: RunSetup,
): Promise<{ messages: OutboxMessage[]; usage: ReturnType<typeof usageOf>; decisions: readonly DecisionRecord[] }> {
  const names = toolNames(setup.tools.map((tool) => tool.name));
  let running: Query | null = null;
  const turns = new TurnWatcher();
  const waiting = answer === null ? null : session.waiting;
  const policy: Policy = createPolicy({
    ctx,
    permissions: setup.permissions,
    vigilTools: new Map(setup.tools.map((tool) => [tool.name, tool])),
    names,
    turns,
    waiting,
    answer,
    sessionId: () => session.sessionId,
    turnTimeoutMs: TURN_TIMEOUT_MS,
    toolReady: async (tool) => {
      if (!setup.tools.some((own) => own.name === tool) || running === null) return;
      await serverConnected(running, servedAs(tool).server, abort.signal);
    },
  });
  const abort = new AbortController();
  const stop = (): void => abort.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', stop, { once: true });
  const failure: { error?: unknown; failed: boolean } = { failed: false };
  const child = childHandle(abort.signal);
  await Promise.all([mkdir(setup.dirs.cwd, { recursive: true }), mkdir(setup.dirs.configDir, { recursive: true })]);

  const mcpServers = { ...setup.sdkOptions.mcpServers };
  if (setup.tools.length > 0) {
    const served = (await import('./vigil-tools-server.js')).vigilToolsServers(sdk, setup.tools, ctx, policy, (error) => {
      if (!failure.failed) Object.assign(failure, { failed: true, error });
      abort.abort(error);
    });
    Object.assign(mcpServers, served);
  }
  const hooks = setup.sdkOptions.hooks ?? {};
  const maxBudgetUsd = runCap(setup.sdkOptions.maxBudgetUsd, await ctx.budget);
  const options: Options = {
    ...setup.sdkOptions,
    ...(maxBudgetUsd === undefined ? {} : { maxBudgetUsd }),
    mcpServers,
    permissionMode: 'default',
    tools: setup.builtIn,
    settingSources: [],
    hooks: {
      ...hooks,
      PreToolUse: [{ hooks: [policy.hook], onFailure: 'block' }],
      PostToolUse: [...(hooks.PostToolUse ?? []), { hooks: [policy.ran] }],
      PostToolUseFailure: [...(hooks.PostToolUseFailure ?? []), { hooks: [policy.ran] }],
    },
    canUseTool: policy.canUseTool,
    includePartialMessages: true,
    cwd: setup.dirs.cwd,
    env: childEnv(setup.dirs, setup.modelBaseUrl, setup.givenEnv),
    sessionStore: transcriptStore(session),
    abortController: abort,
    spawnClaudeCodeProcess: (spawnOptions) => child.spawn(spawnOptions),
    ...(session.sessionId === null ? {} : { resume: session.sessionId }),
  };

  let result: SDKResultMessage | null = null;
  running = sdk.query({ prompt: text, options });
  try {
    for await (const message of running) {
      see(message, turns, session);
      if (message.type === 'result') result = message;
    }
  } catch (error) {
    if (failure.failed) throw failure.error;
    ctx.signal.throwIfAborted();
    // The SDK throws after yielding an error result (max turns, budget): that result says why.
    if (result === null || result.subtype === 'success') {
      const tail = child.stderrTail().trim();
      throw new Error(`Claude Code failed: ${(error as Error).message}${tail === '' ? '' : `\n${tail}`}`, { cause: error });
    }
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    // Whatever the child started goes with it.
    child.kill();
  }
  if (failure.failed) throw failure.error;
  ctx.signal.throwIfAborted();
  if (result === null) throw new Error(`Claude Code ended without a result${child.stderrTail() === '' ? '' : `: ${child.stderrTail().trim()}`}`);

  const total = usageOf(result.modelUsage);
  const usage = usageSince(total, session.usageSoFar ?? undefined);
  if (total !== undefined) session.usageSoFar = total;
  if (usage !== undefined) ctx.recordUsage(usage);
  policy.settle();
  if (policy.approvedButNotRun()) {
    // Seen when the resumed call came before Claude Code had connected Vigil's tool server: the
    // model was told the call was refused. Nothing of this run is saved, so the retry resumes
    // the session from before, asks the hook again, and the call runs once.
    throw new ResumeNotDone('the approved call did not run (its tool was not ready in Claude Code); the run is retried from the saved session');
  }

  const reason = result.terminal_reason;
  if (reason === 'tool_deferred' && policy.asked !== null) {
    session.waiting = policy.asked.call;
    return { messages: [policy.asked.message], usage, decisions: policy.decisions };
  }
  session.waiting = null;
  if (reason === 'tool_deferred' || reason === 'tool_deferred_unavailable') {
    // A call deferred by nobody Vigil knows of, or a resumed call whose tool was not there: retried.
    throw new ResumeNotDone(`Claude Code ended with ${reason}: ${result.subtype === 'success' ? result.result : result.errors.join('; ')}`);
  }
  if (result.subtype !== 'success') {
    // Over its turns or budget, or failed inside: a retry would do the same.
    throw new TerminalError(`Claude Code stopped: ${result.subtype}${result.errors.length > 0 ? `: ${result.errors.join('; ')}` : ''}`);
  }
  if (result.is_error) throw new Error(`Claude Code's turn failed: ${result.result}`);
  const reply = result.result.trim();
  return { messages: reply === '' ? [] : [reply], usage, decisions: policy.decisions };
}

const READY_TIMEOUT_MS = 10_000;

const STATUS_TIMEOUT_MS = 500;

/**
 * Waits (a bounded while) until Claude Code reports the MCP server
 * connected; after that the call is tried anyway (a call that then does not
 * run fails the run: approvedButNotRun). Each status request is bounded
 * too: it is asked while Claude Code waits on this very hook, and a status
 * that never comes must not hold the hook until Claude Code's hook timeout.
 */
async function serverConnected(query: Query, name: string, signal: AbortSignal): Promise<void> {
  const timeout = AbortSignal.timeout(READY_TIMEOUT_MS);
  while (!timeout.aborted && !signal.aborted) {
    const servers = await Promise.race([query.mcpServerStatus().catch(() => []), delay(STATUS_TIMEOUT_MS, [])]);
    if (servers.some((server) => server.name === name && server.status === 'connected')) return;
    await delay(50, null);
  }
}

function delay<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms).unref());
}

/** Feeds the turn watcher and keeps the session id. */
function see(message: SDKMessage, turns: TurnWatcher, session: SdkSession): void {
  if (message.type === 'stream_event') turns.see(message.parent_tool_use_id ?? '', message.event as StreamEvent);
  if ('session_id' in message && typeof message.session_id === 'string' && message.session_id !== '') session.sessionId = message.session_id;
}

/** The answer to the call the session waits on (if it is in this batch), and the other events, which the model reads. */
function sortEvents(events: readonly ClaimedEvent[], session: SdkSession): { answer: ClaimedEvent | null; arrived: ClaimedEvent[] } {
  let answer: ClaimedEvent | null = null;
  const arrived: ClaimedEvent[] = [];
  for (const event of events) {
    if (event.source === 'approval' && event.sourceId.startsWith(APPROVAL_PREFIX)) {
      // An answer the session does not wait for belongs to no call of this conversation.
      if (session.waiting?.approvalId === event.sourceId) answer = event;
      continue;
    }
    arrived.push(event);
  }
  return { answer, arrived };
}

/** The inbox's folder name: a hash, so any inbox id is a safe path segment. */
function inboxKey(inboxId: string): string {
  return createHash('sha256').update(inboxId).digest('hex').slice(0, 32);
}

/** The query's maxBudgetUsd: the user's option, lowered to what the person's budget has left (ctx.budget). */
export function runCap(given: number | undefined, budget: RunBudget | null | undefined): number | undefined {
  const left = budget?.costLeftUsd ?? null;
  if (left === null) return given;
  return given === undefined ? left : Math.min(given, left);
}
