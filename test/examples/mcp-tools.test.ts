/**
 * examples/mcp-tools: the example's own agent, with its own MCP server
 * (a real child over stdio), against the example's fake Messages API
 * (examples/mcp-tools/fake-model.ts, the one its README starts), one worker
 * turn at a time on a throwaway store. The model sees `echo__say`; the
 * policy and the approval use `echo.say` / `echo.delete_all`: say runs on
 * its own (trusted, read-only), delete_all asks first and runs on yes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Agent } from 'vigil-agents';
import type { McpTools } from 'vigil-agents/mcp';
import { runOnce, throwawayStore } from 'vigil-agents/testing';
import type { FakeMessagesServer } from '../agent/claude/fake-messages-server.js';
import { startFakeModel } from '../../examples/mcp-tools/fake-model.ts';

let fake: FakeMessagesServer;
let agent: Agent;
let echo: McpTools;

beforeAll(async () => {
  fake = await startFakeModel();
  process.env.ANTHROPIC_BASE_URL = fake.url;
  process.env.ANTHROPIC_API_KEY = 'fake';
  ({ default: agent, echo } = await import('../../examples/mcp-tools/agent.ts'));
});
afterAll(async () => {
  await echo?.close();
  await fake?.close();
  delete process.env.ANTHROPIC_BASE_URL;
  delete process.env.ANTHROPIC_API_KEY;
});

async function sent(kit: Awaited<ReturnType<typeof throwawayStore>>, inbox: string): Promise<string[]> {
  const bodies: string[] = [];
  await kit.store.inbox(inbox).dispatch((body) => void bodies.push(body));
  return bodies;
}

it('the model calls echo__say; Vigil decides on echo.say (allowed by the trusted read-only default) and the server answers', async () => {
  await using kit = await throwawayStore({ outboxGapMs: 0 });
  await kit.store.inbox('alice').ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'hello there' } });
  const turn = await runOnce({ store: kit.store, inbox: 'alice', agent, clock: kit.clock });
  expect(turn.runs[0]!.decisions).toMatchObject([{ tool: 'echo.say', decision: 'allow' }]);
  expect(await sent(kit, 'alice')).toEqual(['Done: "echo: hello there"']);
  const tools = (fake.requests.at(-1)!.body as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  expect(tools).toEqual(['echo__say', 'echo__delete_all']);
});

it('echo.delete_all asks first (the policy line, 1 h); yes runs it once, and the model hears its result', async () => {
  await using kit = await throwawayStore({ outboxGapMs: 0 });
  const inbox = kit.store.inbox('bob');
  await inbox.ingest({ source: 'chat', sourceId: 'c1', payload: { text: 'now forget everything' } });
  const asked = await runOnce({ store: kit.store, inbox: 'bob', agent, clock: kit.clock });
  expect(asked.runs[0]!.decisions).toMatchObject([{ tool: 'echo.delete_all', decision: 'ask' }]);
  const [question] = await sent(kit, 'bob');
  expect(question).toMatch(/^Approve\? echo\.delete_all \{\} \(approval (tool-\S+)\)$/);
  const [approval] = await kit.store.view('bob').approvals();
  expect(approval!.expiresAt - approval!.requestedAt).toBe(3_600_000);

  expect(await inbox.answerApproval(approval!.id, 'yes')).toBe('yes');
  const resumed = await runOnce({ store: kit.store, inbox: 'bob', agent, clock: kit.clock });
  expect(resumed.runs[0]!.decisions).toMatchObject([{ tool: 'echo.delete_all', decision: 'approved' }]);
  expect(await sent(kit, 'bob')).toEqual([expect.stringMatching(/^Done: \{"forgotten":\d+\}$/)]);
});
