/**
 * claudeAgentSdk through the real runtime (WorkerPool on a real SQLite
 * store), with the Agent SDK's real Claude Code child talking to a local
 * streaming fake of the Messages API: Vigil's policy decides every call in
 * its hook; an ask becomes a durable approval and resumes the session from
 * the transcript kept in the inbox (in a fresh home and working directory,
 * as another machine would); a turn with several calls and an ask runs
 * none; a hook that throws or a cancelled wait never runs the tool; the
 * child's environment holds none of the service's secrets; an aborted run
 * kills the child's whole process group.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, defineTool, type Agent, type Store } from '../../src/index.js';
import { claudeAgentSdk } from '../../src/adapters/claude-agent-sdk/index.js';
import { runCap } from '../../src/adapters/claude-agent-sdk/agent.js';
import type { SdkSession } from '../../src/adapters/claude-agent-sdk/session.js';
import { PLACEHOLDER_KEY } from '../../src/adapters/claude-agent-sdk/child-env.js';
import { createPolicy } from '../../src/adapters/claude-agent-sdk/policy-hook.js';
import { toolNames } from '../../src/adapters/claude-agent-sdk/tool-names.js';
import { TurnWatcher } from '../../src/adapters/claude-agent-sdk/turn-watcher.js';
import { RuntimeEvents } from '../../src/events.js';
import { WorkerPool } from '../../src/runtime/worker-pool.js';
import { VigilError } from '../../src/errors.js';
import { callTools, resultText, say, startFakeClaudeStream, toolResults, type FakeClaudeStream } from '../fixtures/fake-claude-stream.js';
import { defer, eventually, tempStore } from '../runtime/helpers.js';

const ASK = { ask: { expiresInMs: 60_000 } };
const dirs: string[] = [];
let fake: FakeClaudeStream;

afterEach(async () => {
  await fake?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-sdk-test-'));
  dirs.push(dir);
  return dir;
}

function refundTools(options: { summaryThrows?: boolean } = {}) {
  const calls: { tool: string; input: unknown; key: string; approvalId: string | null }[] = [];
  const refund = defineTool<{ order: string }>({
    name: 'refund',
    description: 'Refund an order',
    inputSchema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
    summary: (input) => {
      if (options.summaryThrows === true) throw new Error('summary broke');
      return `Refund order ${input.order}`;
    },
    run: async (input, call) => {
      calls.push({ tool: 'refund', input, key: call.idempotencyKey, approvalId: call.approvalId });
      return { refunded: input.order };
    },
  });
  const lookup = defineTool<{ order: string }>({
    name: 'lookup',
    description: 'Look an order up',
    inputSchema: { type: 'object', properties: { order: { type: 'string' } } },
    run: async (input, call) => {
      calls.push({ tool: 'lookup', input, key: call.idempotencyKey, approvalId: null });
      return { order: input.order, total: 19.5 };
    },
  });
  return { calls, list: [refund, lookup] };
}

const BUILT_INS = ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'WebFetch', 'WebSearch', 'Agent', 'Task', 'NotebookEdit'];
const REFUND = 'mcp__vigil__refund';
const LOOKUP = 'mcp__vigil__lookup';

async function startPool(store: Store, agent: Agent, options: { runTimeoutMs?: number } = {}) {
  const events = new RuntimeEvents();
  const pool = new WorkerPool({ store, agent, events, pollIntervalMs: 100, proxyUrl: fake.url, approvalLink: (link) => `https://vigil.test/a/${link.approvalId}`, ...options });
  await pool.start();
  const stop = () => pool.stop({ graceMs: 0 });
  defer(stop);
  return { events, stop };
}

/** The next run:finished, waited for long enough for Claude Code to start (about a second, more on a loaded machine). */
function finished(events: RuntimeEvents) {
  return events.next('run:finished', () => true, AbortSignal.timeout(45_000));
}

async function held(store: Store, inboxId: string): Promise<{ body: string; urgent: boolean }[]> {
  const out: { body: string; urgent: boolean }[] = [];
  await store.inbox(inboxId).dispatch((_body, messages) => void out.push(...messages.map((m) => ({ body: m.body, urgent: m.urgent }))));
  return out;
}

async function sessionOf(store: Store, inboxId = 'alice'): Promise<SdkSession> {
  return (await store.inbox(inboxId).getSession()) as SdkSession;
}

describe('claudeAgentSdk on the runtime', () => {
  it('an allowed tool runs once with its key, the reply goes out, usage is reported, and the transcript is kept in the inbox', async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', LOOKUP, { order: '42' }]), { ...say('Order 42 came to 19.50.'), usage: { input_tokens: 30, output_tokens: 5, cache_read_input_tokens: 7 } });
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools();
    const { events } = await startPool(store, claudeAgentSdk({ tools: t.list, permissions: { lookup: 'allow' }, workDir: workDir() }));
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'what did order 42 cost?' } });
    const run = await done;
    expect(run.outcome).toBe('messages');
    expect(t.calls).toMatchObject([{ tool: 'lookup', input: { order: '42' } }]);
    expect(t.calls[0]!.key).toMatch(/^[\w-]{32}$/);
    expect(resultText(toolResults(fake.turns[1]!)[0]!.content)).toBe(JSON.stringify({ order: '42', total: 19.5 }));
    expect(await held(store, 'alice')).toEqual([{ body: 'Order 42 came to 19.50.', urgent: false }]);
    expect(run.usage).toMatchObject({ inputTokens: 50, outputTokens: 15, cacheReadTokens: 7 });
    expect(run.usage!.costUsd).toBeGreaterThan(0);
    // Recorded with the finish, with the SDK's own cost (not the price table's).
    expect((await store.inbox('alice').stats()).usage.today).toMatchObject({ runs: 1, inputTokens: 50, outputTokens: 15, cacheReadTokens: 7, costUsd: run.usage!.costUsd, unpricedRuns: 0 });
    const session = await sessionOf(store);
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.transcript['']!.some((entry) => entry.type === 'assistant')).toBe(true);
    expect(session.decisions).toMatchObject([{ tool: 'lookup', decision: 'allow' }]);
    // And on the run's own record, as toolAgent's: the run:finished event, its log line and metrics.
    expect(run.decisions).toMatchObject([{ tool: 'lookup', decision: 'allow' }]);
    // The prompt went in as the user's text; the model sees the tool by the SDK's MCP name.
    expect(JSON.stringify(fake.turns[0]!.body.messages)).toContain('what did order 42 cost?');
    const offered = fake.turns[0]!.body.tools!.map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining([REFUND, LOOKUP]));
    // No built-in tool: the policy names none.
    for (const builtIn of BUILT_INS) expect(offered).not.toContain(builtIn);
  }, 60_000);

  it('ask: an urgent question; yes resumes the session in a fresh home and runs the approved call once; a second tap changes nothing', async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', REFUND, { order: '42' }]));
    // Says it is done only when the refund's result came back (a retried resume asks again).
    fake.setFallback((request) => say(toolResults(request).some((result) => resultText(result.content).includes('refunded')) ? 'Refunded order 42.' : 'It did not go through.'));
    const { store } = await tempStore({ outboxGapMs: 3_600_000, retryBackoff: { baseMs: 50, maxMs: 100 } });
    const t = refundTools();
    const permissions = { refund: ASK };
    const first = await startPool(store, claudeAgentSdk({ tools: t.list, permissions, workDir: workDir() }));
    const inbox = store.inbox('alice');
    let done = finished(first.events);
    await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    expect((await done).outcome).toBe('messages');
    const asked = await sessionOf(store);
    const approvalId = asked.waiting!.approvalId;
    expect(asked.waiting).toMatchObject({ toolUseId: 'tu_1', tool: 'refund', input: { order: '42' } });
    expect(approvalId).toMatch(/^sdk-tool-/);
    expect(t.calls).toEqual([]);
    expect(await held(store, 'alice')).toEqual([{ body: `Approve? Refund order 42\nhttps://vigil.test/a/${approvalId}`, urgent: true }]);
    await first.stop();

    // Another "machine": a new pool, another work folder (home, config, cwd): only the inbox holds the transcript.
    const second = await startPool(store, claudeAgentSdk({ tools: t.list, permissions, workDir: workDir() }));
    // The run that answers: one whose approved call was not run yet is retried (see agent.ts).
    done = second.events.next('run:finished', (run) => run.outcome !== 'error', AbortSignal.timeout(60_000));
    expect(await inbox.answerApproval(approvalId, 'yes')).toBe('yes');
    const resumed = await done;
    expect(resumed.outcome).toBe('messages');
    // The SDK's totals go on from the transcript's; the run reports only its own turn (20 in, 10 out), once per
    // try: a resume Claude Code did not carry out is tried again within the run, and each try was paid for.
    const tries = resumed.usage!.inputTokens / 20;
    expect(Number.isInteger(tries) && tries >= 1).toBe(true);
    expect(resumed.usage).toMatchObject({ inputTokens: 20 * tries, outputTokens: 10 * tries });
    expect(t.calls).toMatchObject([{ tool: 'refund', input: { order: '42' }, approvalId }]);
    expect(await held(store, 'alice')).toEqual([{ body: 'Refunded order 42.', urgent: false }]);
    // The model's last turn carried the tool's result for the very call it made.
    expect(toolResults(fake.turns.at(-1)!).map((result) => [result.tool_use_id, resultText(result.content)])).toEqual([['tu_1', JSON.stringify({ refunded: '42' })]]);
    expect((await sessionOf(store)).waiting).toBeNull();
    const turns = fake.turns.length;
    expect(await inbox.answerApproval(approvalId, 'no')).toBe('yes');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.turns).toHaveLength(turns);
  }, 90_000);

  it('no: the model hears the refusal and the tool never runs', async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', REFUND, { order: '7' }]), say('Understood, no refund.'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools();
    const { events } = await startPool(store, claudeAgentSdk({ tools: t.list, permissions: { refund: ASK }, workDir: workDir() }));
    let done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 7' } });
    await done;
    done = finished(events);
    await store.inbox('alice').answerApproval((await sessionOf(store)).waiting!.approvalId, 'no');
    expect((await done).outcome).toBe('messages');
    expect(t.calls).toEqual([]);
    const [result] = toolResults(fake.turns[1]!);
    expect(result).toMatchObject({ tool_use_id: 'tu_1', is_error: true });
    // The hook's reason; or, when Claude Code refused the resumed call before asking the hook (design note), its own.
    expect(resultText(result!.content)).toMatch(/the user declined this action|The user doesn't want to take this action/);
    expect((await sessionOf(store)).decisions.at(-1)).toMatchObject({ tool: 'refund', decision: 'declined' });
  }, 90_000);

  it("an ask's remindAt in the policy is the approval's: its reminder is due at that share of its life", async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', REFUND, { order: '7' }]));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools();
    const { events } = await startPool(store, claudeAgentSdk({ tools: t.list, permissions: { refund: { ask: { expiresInMs: 60_000, remindAt: 0.25 } } }, workDir: workDir() }));
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 7' } });
    await done;
    const approval = await store.inbox('alice').getApproval((await sessionOf(store)).waiting!.approvalId);
    expect(approval!.remindAt! - approval!.requestedAt).toBe(15_000);
  }, 90_000);

  it('yes for one input does not run another: a transcript changed after the ask is refused', async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', REFUND, { order: '42' }]), say('That was not approved.'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools();
    const inner = claudeAgentSdk({ tools: t.list, permissions: { refund: ASK }, workDir: workDir() });
    // Whatever changed the stored call (a bug, a tampered row): a 'tamper' event rewrites the session, so the call it resumes says 9999.
    const agent = defineAgent({
      ...inner,
      async run(ctx) {
        if (ctx.events[0]!.source !== 'tamper') return inner.run(ctx);
        const stored = (await ctx.session.get()) as SdkSession;
        const tampered = JSON.parse(JSON.stringify(stored).replaceAll('{"order":"42"}', '{"order":"9999"}')) as SdkSession;
        ctx.session.set({ ...tampered, waiting: stored.waiting });
        return { nothing: true };
      },
    });
    const { events } = await startPool(store, agent);
    let done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await done;
    const session = await sessionOf(store);
    done = finished(events);
    await store.inbox('alice').ingest({ source: 'tamper', sourceId: 't1', payload: {} });
    await done;
    done = finished(events);
    await store.inbox('alice').answerApproval(session.waiting!.approvalId, 'yes');
    await done;
    expect(t.calls).toEqual([]);
    expect((await sessionOf(store)).decisions.at(-1)).toMatchObject({ tool: 'refund', decision: 'deny', reason: 'the approval was for refund with another input; this call was not approved' });
    expect(toolResults(fake.turns[1]!)[0]).toMatchObject({ tool_use_id: 'tu_1', is_error: true });
  }, 90_000);

  it('a turn with several calls, one of them asked about, runs none of them and asks for one call at a time', async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', LOOKUP, { order: '42' }], ['tu_2', REFUND, { order: '42' }]), callTools(['tu_3', REFUND, { order: '42' }]));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools();
    const { events } = await startPool(store, claudeAgentSdk({ tools: t.list, permissions: { lookup: 'allow', refund: ASK }, workDir: workDir() }));
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'look up and refund order 42' } });
    expect((await done).outcome).toBe('messages');
    expect(t.calls).toEqual([]);
    const refused = toolResults(fake.turns[1]!);
    expect(refused.map((result) => result.tool_use_id)).toEqual(['tu_1', 'tu_2']);
    for (const result of refused) expect(resultText(result.content)).toContain('needs a person\'s approval, which holds one call at a time');
    // The model's next turn called refund alone: that one is asked.
    expect((await sessionOf(store)).waiting).toMatchObject({ toolUseId: 'tu_3', tool: 'refund' });
  }, 90_000);

  it('a hook that throws (the tool\'s summary) blocks the call: the tool never runs', async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', REFUND, { order: '42' }]), say('It did not go through.'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools({ summaryThrows: true });
    const { events } = await startPool(store, claudeAgentSdk({ tools: t.list, permissions: { refund: ASK }, workDir: workDir() }));
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'refund order 42' } });
    await done;
    expect(t.calls).toEqual([]);
    const [result] = toolResults(fake.turns[1]!);
    expect(result).toMatchObject({ tool_use_id: 'tu_1', is_error: true });
    // Blocked by the hook's own failure (onFailure: 'block'), not left to the canUseTool backstop.
    expect(resultText(result!.content)).toContain('blocking because onFailure is "block"');
    expect((await sessionOf(store))?.waiting ?? null).toBeNull();
  }, 60_000);

  it('an aborted run (its timeout) cancels the permission wait and kills the Claude Code child and its group: nothing runs', async () => {
    fake = await startFakeClaudeStream();
    // The turn's message never ends: the hook waits for it, and the run times out.
    fake.enqueue({ ...callTools(['tu_1', LOOKUP, { order: '42' }]), hang: true });
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools();
    const agent = claudeAgentSdk({ tools: t.list, permissions: { lookup: 'allow' }, workDir: workDir() });
    const { events } = await startPool(store, agent, { runTimeoutMs: 4_000 });
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'look up order 42' } });
    expect((await done).outcome).toBe('timeout');
    expect(t.calls).toEqual([]);
    await eventually(async () => !claudeChildren().length, 'no Claude Code child left running');
  }, 60_000);

  it('an aborted run kills what Claude Code started too, even in a session of its own: a Bash command left running is gone', async () => {
    fake = await startFakeClaudeStream();
    // A command that never ends (Claude Code refuses a plain long sleep).
    fake.enqueue(callTools(['tu_1', 'Bash', { command: 'tail -f /dev/null' }]));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const { events } = await startPool(store, claudeAgentSdk({ permissions: { Bash: 'allow' }, workDir: workDir() }), { runTimeoutMs: 5_000 });
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'wait a long time' } });
    await eventually(async () => processes('tail\u0000-f\u0000/dev/null').length > 0, 'the Bash command running');
    expect((await done).outcome).toBe('timeout');
    await eventually(async () => processes('tail\u0000-f\u0000/dev/null').length === 0 && claudeChildren().length === 0, 'the Bash command and Claude Code gone');
  }, 60_000);

  it("the child's environment holds none of the service's secrets: Bash, allowed, sees the placeholder key and what childEnv gave", async () => {
    process.env.VIGIL_TEST_CANARY = 'canary-secret-5d1c';
    defer(() => void delete process.env.VIGIL_TEST_CANARY);
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', 'Bash', { command: 'env' }]), say('done'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const agent = claudeAgentSdk({ permissions: { Bash: 'allow' }, workDir: workDir(), childEnv: { GREETING: 'hello', ANTHROPIC_BASE_URL: 'http://elsewhere.test' } });
    const { events } = await startPool(store, agent);
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'print the environment' } });
    await done;
    const env = resultText(toolResults(fake.turns[1]!)[0]!.content);
    expect(env).toContain(`ANTHROPIC_API_KEY=${PLACEHOLDER_KEY}`);
    expect(env).not.toContain('canary-secret-5d1c');
    // What the agent gave, value by value; it cannot move the model API off the proxy.
    expect(env).toContain('GREETING=hello');
    expect(env).toContain(`ANTHROPIC_BASE_URL=${fake.url}/anthropic`);
    expect(env).toContain('PATH=/usr/local/bin:/usr/bin:/bin');
    expect(fake.turns[0]!.headers['x-api-key']).toBe(PLACEHOLDER_KEY);
    // Of the built-in tools, only Bash was offered: the policy named it.
    const offered = fake.turns[0]!.body.tools!.map((tool) => tool.name);
    expect(offered).toContain('Bash');
    for (const builtIn of BUILT_INS.filter((name) => name !== 'Bash')) expect(offered).not.toContain(builtIn);
  }, 60_000);

  it.each([
    ['maxTurns', { maxTurns: 1 }, 'error_max_turns'],
    ['maxBudgetUsd', { maxBudgetUsd: 0.000_001 }, 'error_max_budget_usd'],
  ])('options.%s bounds each run: past it the run is dead with the reason', async (_key, options, subtype) => {
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', LOOKUP, { order: '1' }]), callTools(['tu_2', LOOKUP, { order: '2' }]));
    fake.setFallback(say('never reached'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const t = refundTools();
    const { events } = await startPool(store, claudeAgentSdk({ options, tools: t.list, permissions: { lookup: 'allow' }, workDir: workDir() }));
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'look everything up' } });
    const run = await done;
    expect(run.outcome).toBe('dead');
    expect(run.error).toContain(`Claude Code stopped: ${subtype}`);
    expect(run.usage?.inputTokens).toBeGreaterThan(0);
    expect(await held(store, 'alice')).toEqual([]);
  }, 60_000);

  it('a transcript past maxTranscriptBytes is let go once no call waits: the next run starts a new conversation', async () => {
    fake = await startFakeClaudeStream();
    fake.enqueue(say('First.'), say('Second.'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const { events } = await startPool(store, claudeAgentSdk({ workDir: workDir(), maxTranscriptBytes: 1_000 }));
    let done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'the first message' } });
    await done;
    expect(await sessionOf(store)).toMatchObject({ sessionId: null, transcript: {}, usageSoFar: null });
    done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm2', payload: { text: 'the second message' } });
    await done;
    expect(JSON.stringify(fake.turns[1]!.body.messages)).not.toContain('the first message');
    expect(await held(store, 'alice')).toEqual([
      { body: 'First.', urgent: false },
      { body: 'Second.', urgent: false },
    ]);
  }, 60_000);

  it("the SDK's own MCP servers go through the same policy under Vigil's names (server.tool, patterns)", async () => {
    const { createSdkMcpServer } = await import('@anthropic-ai/claude-agent-sdk');
    const { z } = await import('zod');
    const ran: string[] = [];
    const github = createSdkMcpServer({
      name: 'github',
      tools: ['read_issue', 'merge'].map((name) => ({
        name,
        description: name,
        inputSchema: { number: z.number() },
        handler: async () => {
          ran.push(name);
          return { content: [{ type: 'text' as const, text: `${name} done` }] };
        },
      })),
    });
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', 'mcp__github__read_issue', { number: 1 }], ['tu_2', 'mcp__github__merge', { number: 1 }]), say('Read it; merging is not allowed.'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const agent = claudeAgentSdk({ options: { mcpServers: { github } }, permissions: { 'github.*': 'allow', 'github.merge': 'deny' }, workDir: workDir() });
    const { events } = await startPool(store, agent);
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'read issue 1 and merge it' } });
    await done;
    expect(ran).toEqual(['read_issue']);
    expect((await sessionOf(store)).decisions.map((decision) => [decision.tool, decision.decision])).toEqual(
      expect.arrayContaining([
        ['github.read_issue', 'allow'],
        ['github.merge', 'deny'],
      ]),
    );
    const merge = toolResults(fake.turns[1]!).find((result) => result.tool_use_id === 'tu_2')!;
    expect(resultText(merge.content)).toContain('github.merge is denied by policy');
  }, 60_000);

  it("a dotted Vigil tool (mcpTools' echo.say) is served as mcp__echo__say, as if Claude Code ran that server; decided as echo.say", async () => {
    const said: unknown[] = [];
    const echo = defineTool<{ text: string }>({
      name: 'echo.say',
      description: 'Says the text back.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      run: async (input) => (said.push(input), `echo: ${input.text}`),
    });
    fake = await startFakeClaudeStream();
    fake.enqueue(callTools(['tu_1', 'mcp__echo__say', { text: 'hi' }]), say('Said it.'));
    const { store } = await tempStore({ outboxGapMs: 0 });
    const { events } = await startPool(store, claudeAgentSdk({ tools: [echo], permissions: { 'echo.*': 'allow' }, workDir: workDir() }));
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'say hi' } });
    const run = await done;
    expect(fake.turns[0]!.body.tools!.map((tool) => tool.name)).toContain('mcp__echo__say');
    expect(said).toEqual([{ text: 'hi' }]);
    expect(run.decisions).toMatchObject([{ tool: 'echo.say', decision: 'allow' }]);
  }, 60_000);

  it('without the credential proxy the run is dead at once with a clear reason', async () => {
    fake = await startFakeClaudeStream();
    const { store } = await tempStore({ outboxGapMs: 0 });
    const events = new RuntimeEvents();
    const pool = new WorkerPool({ store, agent: claudeAgentSdk({ workDir: workDir() }), events, pollIntervalMs: 100 });
    await pool.start();
    defer(() => pool.stop({ graceMs: 0 }));
    const done = finished(events);
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'hi' } });
    const run = await done;
    expect(run.outcome).toBe('dead');
    expect(run.error).toContain('needs the credential proxy');
  });
});

describe('the canUseTool backstop', () => {
  it('refuses whatever reaches it, at once, and records the refusal', async () => {
    const recorded: unknown[] = [];
    const policy = createPolicy({
      ctx: { now: 0, tools: { record: (decision: unknown) => recorded.push(decision) } } as never,
      permissions: { Bash: 'allow' },
      vigilTools: new Map(),
      names: toolNames([]),
      turns: new TurnWatcher(),
      waiting: null,
      answer: null,
      sessionId: () => null,
      turnTimeoutMs: 1_000,
      toolReady: () => Promise.resolve(),
    });
    // Even a tool the policy allows: a call that got here skipped the hook, and is refused.
    await expect(policy.canUseTool('Bash', { command: 'ls' }, { signal: new AbortController().signal, toolUseID: 'tu_x', requestId: 'r1' })).resolves.toMatchObject({ behavior: 'deny' });
    await expect(policy.canUseTool('mcp__github__merge', {}, { signal: new AbortController().signal, toolUseID: 'tu_x', requestId: 'r1' })).resolves.toMatchObject({
      behavior: 'deny',
      message: "github.merge was not allowed by Vigil's policy",
    });
    expect(policy.decisions.map((decision) => [decision.tool, decision.decision])).toEqual([
      ['Bash', 'deny'],
      ['github.merge', 'deny'],
    ]);
    expect(recorded).toMatchObject([
      { tool: 'Bash', decision: 'deny' },
      { tool: 'github.merge', decision: 'deny' },
    ]);
  });
});

describe('claudeAgentSdk options', () => {
  it.each([
    ['permissionMode', { permissionMode: 'bypassPermissions' }],
    ['canUseTool', { canUseTool: async () => ({ behavior: 'allow' }) }],
    ['hooks.PreToolUse', { hooks: { PreToolUse: [] } }],
    ['resume', { resume: 'x' }],
    ['sessionStore', { sessionStore: {} }],
    ['env', { env: {} }],
    ['cwd', { cwd: '/' }],
    ['abortController', { abortController: new AbortController() }],
    ['allowedTools', { allowedTools: ['Bash'] }],
    ['tools', { tools: ['Bash'] }],
  ])('refuses options.%s, which Vigil owns, with invalid_options naming it', (key, options) => {
    const attempt = () => claudeAgentSdk({ options: options as never });
    expect(attempt).toThrow(VigilError);
    expect(attempt).toThrow(`options.${key} is set by Vigil`);
  });

  it("maxBudgetUsd is the least of the user's option and the cost the person's budget has left (ctx.budget)", () => {
    expect(runCap(2, { costLeftUsd: 0.5, tokensLeft: null })).toBe(0.5);
    expect(runCap(0.25, { costLeftUsd: 0.5, tokensLeft: null })).toBe(0.25);
    expect(runCap(undefined, { costLeftUsd: 0.5, tokensLeft: 100 })).toBe(0.5);
    expect(runCap(2, { costLeftUsd: null, tokensLeft: 100 })).toBe(2);
    expect(runCap(undefined, null)).toBeUndefined();
  });

  it("refuses an SDK MCP server named as a server Vigil's own tools are served on", () => {
    const echo = defineTool({ name: 'echo.say', description: 'x', inputSchema: { type: 'object' }, run: async () => 1 });
    const refund = defineTool({ name: 'refund', description: 'x', inputSchema: { type: 'object' }, run: async () => 1 });
    expect(() => claudeAgentSdk({ tools: [echo], options: { mcpServers: { echo: { command: 'x' } } } })).toThrow("options.mcpServers.echo has the name Vigil's own echo.* tools are served as");
    expect(() => claudeAgentSdk({ tools: [refund], options: { mcpServers: { vigil: { command: 'x' } } } })).toThrow("options.mcpServers.vigil has the name Vigil's own tools are served as");
    expect(() => claudeAgentSdk({ tools: [refund], options: { mcpServers: { echo: { command: 'x' } } } })).not.toThrow();
  });

  it("accepts permissionMode 'default', patterns, and tools the SDK will name later", () => {
    expect(() => claudeAgentSdk({ options: { permissionMode: 'default', maxTurns: 3, maxBudgetUsd: 0.5 }, permissions: { 'github.*': 'allow', Bash: 'deny', 'linear.create_issue': ASK } })).not.toThrow();
    expect(() => claudeAgentSdk({ options: { maxTurns: 0 } })).toThrow('options.maxTurns must be a positive integer');
    expect(() => claudeAgentSdk({ maxTranscriptBytes: 10 })).toThrow('maxTranscriptBytes must be a whole number of bytes');
  });
});

/** Claude Code processes of these tests still running (the bundled binary, with a home under a test's workDir). */
function claudeChildren(): string[] {
  return processes('claude-agent-sdk-linux-x64');
}

/** Processes whose command line holds `command` and whose environment names a test's workDir. */
function processes(command: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(command) && readFileSync(`/proc/${pid}/environ`, 'utf8').includes('vigil-sdk-test-')) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
