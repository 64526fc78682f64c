/**
 * MCP tools through Vigil's tool loop on the real runtime (WorkerPool, a
 * real SQLite store, the real stdio echo server), with a scripted model
 * that calls `echo__say` as a model would: the policy, the decisions and
 * the approvals use the Vigil name `echo.say`. Trusted servers' annotations
 * pick defaults; an untrusted server's never allow anything; patterns work
 * under ask; `policy()` lets a pattern override a default.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { mcpTools, type McpTools } from '../../../src/adapters/mcp/index.js';
import { defineAgent, toolAgent, type Agent, type Permissions, type Model, type ModelReply, type Store, type Turn } from '../../../src/index.js';
import { RuntimeEvents } from '../../../src/events.js';
import { WorkerPool } from '../../../src/runtime/worker-pool.js';
import { echoStdioServer, recordedCalls } from '../../fixtures/mcp-echo-config.js';
import { defer, nextEvent, tempStore } from '../../runtime/helpers.js';

const ASK = { ask: { expiresInMs: 60_000 } };

class ScriptedModel implements Model {
  readonly name = 'scripted';
  readonly seen: Turn[][] = [];
  constructor(private readonly script: ModelReply[]) {}
  step(history: readonly Turn[]): Promise<ModelReply> {
    this.seen.push(structuredClone([...history]));
    const next = this.script.shift();
    return next === undefined ? Promise.reject(new Error('the script ran out')) : Promise.resolve(next);
  }
}

const say = (text: string): ModelReply => ({ turn: { role: 'assistant', content: [{ type: 'text', text }] }, stopReason: 'end_turn' });
const use = (id: string, name: string, input: Record<string, unknown>): ModelReply => ({
  turn: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
  stopReason: 'tool_use',
});

async function echo(trusted: boolean): Promise<{ tools: McpTools; file: string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'vigil-mcp-perm-')), 'calls.jsonl');
  const tools = await mcpTools({ servers: { echo: echoStdioServer(file, { trusted }) } });
  defer(() => tools.close());
  return { tools, file };
}

async function startPool(store: Store, agent: Agent) {
  const events = new RuntimeEvents();
  const pool = new WorkerPool({ store, agent, events, pollIntervalMs: 1e9, approvalLink: (link) => `https://vigil.test/a/${link.approvalId}` });
  await pool.start();
  defer(() => pool.stop({ graceMs: 0 }));
  return events;
}

const lastResults = (model: ScriptedModel, step: number) => model.seen[step]!.at(-1)!.content;

it('a trusted server: read-only tools allowed, the others asked; the model calls echo__say and the decision says echo.say', async () => {
  const { tools, file } = await echo(true);
  expect(tools.permissions).toEqual({ 'echo.say': 'allow', 'echo.env': 'allow', 'echo.wait': 'allow', 'echo.delete_all': { ask: { expiresInMs: 86_400_000 } }, 'echo.fail': { ask: { expiresInMs: 86_400_000 } } });
  const { store } = await tempStore({ outboxGapMs: 0 });
  const model = new ScriptedModel([use('u1', 'echo__say', { text: 'hello' }), say('It said hello.')]);
  const events = await startPool(store, toolAgent({ model, tools, permissions: tools.permissions }));
  const finished = nextEvent(events, 'run:finished');
  await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'say hello' } });
  expect((await finished).decisions).toMatchObject([{ tool: 'echo.say', decision: 'allow' }]);
  expect(lastResults(model, 1)).toEqual([{ type: 'tool_result', tool_use_id: 'u1', content: JSON.stringify('echo: hello') }]);
  expect(recordedCalls(file)).toMatchObject([{ tool: 'say', input: { text: 'hello' } }]);
  // The model was shown the mapped names.
  expect(model.seen).toHaveLength(2);
});

it("an untrusted server's annotations allow nothing: its read-only tool is denied until the policy names it", async () => {
  const { tools, file } = await echo(false);
  expect(tools.permissions).toEqual({});
  const { store } = await tempStore({ outboxGapMs: 0 });
  const model = new ScriptedModel([use('u1', 'echo__say', { text: 'hello' }), say('I may not.')]);
  const events = await startPool(store, toolAgent({ model, tools, permissions: { ...tools.permissions } }));
  const finished = nextEvent(events, 'run:finished');
  await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'say hello' } });
  expect((await finished).decisions).toMatchObject([{ tool: 'echo.say', decision: 'deny', reason: 'echo.say is not permitted for this agent' }]);
  expect(lastResults(model, 1)).toEqual([{ type: 'tool_result', tool_use_id: 'u1', content: 'Not done: echo.say is not permitted for this agent', is_error: true }]);
  expect(recordedCalls(file)).toEqual([]);
});

it("a pattern under ask: 'echo.*' asks about echo.delete_all; yes runs it once with the approved input; the approval names echo.delete_all", async () => {
  const { tools, file } = await echo(false);
  const { store } = await tempStore({ outboxGapMs: 0 });
  const model = new ScriptedModel([use('u1', 'echo__delete_all', { folder: 'tmp' }), say('Deleted.')]);
  const events = await startPool(store, toolAgent({ model, tools, permissions: { ...tools.permissions, 'echo.*': ASK } }));
  const inbox = store.inbox('alice');
  let finished = nextEvent(events, 'run:finished');
  await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'clean tmp' } });
  const asked = await finished;
  expect(asked.decisions).toMatchObject([{ tool: 'echo.delete_all', decision: 'ask' }]);
  const approvalId = asked.decisions![0]!.approvalId!;
  expect(await store.view('alice').approvals()).toMatchObject([{ id: approvalId, answer: null, action: { type: 'tool', tool: 'echo.delete_all', input: { folder: 'tmp' } } }]);
  expect(recordedCalls(file)).toEqual([]);

  finished = nextEvent(events, 'run:finished');
  expect(await inbox.answerApproval(approvalId, 'yes')).toBe('yes');
  expect((await finished).decisions).toMatchObject([{ tool: 'echo.delete_all', decision: 'approved', approvalId }]);
  expect(recordedCalls(file)).toMatchObject([{ tool: 'delete_all', input: { folder: 'tmp' } }]);
  expect(lastResults(model, 1)).toEqual([{ type: 'tool_result', tool_use_id: 'u1', content: JSON.stringify({ deleted: 'tmp', count: 3 }) }]);
});

it("policy(): a user's pattern overrides a trusted server's default exact name, which a spread cannot", async () => {
  const { tools, file } = await echo(true);
  // Spread, the default's exact name (ask) beats the pattern: the trap policy() avoids.
  const spread: Permissions = { ...tools.permissions, 'echo.delete_*': 'deny' };
  expect(spread['echo.delete_all']).toEqual({ ask: { expiresInMs: 86_400_000 } });
  const permissions = tools.policy({ 'echo.delete_*': 'deny' });
  expect(permissions).toMatchObject({ 'echo.say': 'allow', 'echo.delete_*': 'deny' });
  expect(permissions).not.toHaveProperty(['echo.delete_all']);

  const { store } = await tempStore({ outboxGapMs: 0 });
  const model = new ScriptedModel([use('u1', 'echo__delete_all', { folder: 'tmp' }), say('Refused.')]);
  const events = await startPool(store, toolAgent({ model, tools, permissions }));
  const finished = nextEvent(events, 'run:finished');
  await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'clean tmp' } });
  expect((await finished).decisions).toMatchObject([{ tool: 'echo.delete_all', decision: 'deny', reason: 'echo.delete_all is denied by policy' }]);
  expect((await store.inbox('alice').stats()).approvalsPending).toBe(0);
  expect(recordedCalls(file)).toEqual([]);
});

it('defineAgent takes them too: ctx.tools.call by either name goes through the same policy', async () => {
  const { tools, file } = await echo(false);
  const { store } = await tempStore({ outboxGapMs: 0 });
  const agent = defineAgent({
    name: 'plain',
    tools,
    permissions: { 'echo.say': 'allow' },
    async run(ctx) {
      const said = await ctx.tools.call('echo.say', { text: 'plain' });
      const deleted = await ctx.tools.call('echo__delete_all', { folder: 'tmp' });
      return { messages: [JSON.stringify([said, deleted])] };
    },
  });
  const events = await startPool(store, agent);
  const finished = nextEvent(events, 'run:finished');
  await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'go' } });
  expect((await finished).decisions).toMatchObject([
    { tool: 'echo.say', decision: 'allow' },
    { tool: 'echo.delete_all', decision: 'deny', reason: 'echo.delete_all is not permitted for this agent' },
  ]);
  expect(recordedCalls(file).map((c) => c.tool)).toEqual(['say']);
});
