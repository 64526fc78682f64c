/**
 * claudeAgent end to end in one process: the real runtime (WorkerPool), a
 * real SQLite store, the real SDK, and the local fake Messages API. A
 * multi-turn tool-use conversation across runs (the session carries it),
 * memory tools, an overload retried by the SDK, a 400 that sends the event
 * dead at once; and `vigil serve`'s choice of the Claude demo agent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeAgent, type Permissions, type Store } from '../../../src/index.js';
import { parseConfig } from '../../../src/config/load-config.js';
import { memoryPermissions, memoryTools } from '../../../src/demo/memory-tools.js';
import { RuntimeEvents } from '../../../src/events.js';
import { WorkerPool } from '../../../src/runtime/worker-pool.js';
import { loadAgent } from '../../../src/service/load-agent.js';
import { defer, nextEvent, tempStore } from '../../runtime/helpers.js';
import { apiError, messageReply, overloaded, startFakeMessagesServer, type FakeMessagesServer } from './fake-messages-server.js';

let server: FakeMessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(store: Store, permissions: Permissions = memoryPermissions) {
  server = await startFakeMessagesServer();
  const agent = claudeAgent({
    model: 'claude-test',
    system: 'You are terse.',
    apiKey: 'sk-test',
    baseURL: server.url,
    maxRetries: 2,
    tools: memoryTools(),
    permissions,
  });
  const events = new RuntimeEvents();
  const pool = new WorkerPool({ store, agent, events, pollIntervalMs: 1e9 });
  await pool.start();
  defer(() => pool.stop({ graceMs: 0 }));
  return { server, events };
}

type Sent = { messages: { role: string; content: unknown }[] };

describe('claudeAgent on the runtime', () => {
  it('a tool-use conversation over two runs: memory written in the first is read in the second, the history travels in the session', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const { server, events } = await start(store);
    server.enqueue(
      messageReply([{ type: 'tool_use', id: 'toolu_1', name: 'remember', input: { key: 'name', value: 'Ada' } }], 'tool_use'),
      messageReply([{ type: 'text', text: 'Noted, Ada.' }]),
      messageReply([{ type: 'tool_use', id: 'toolu_2', name: 'recall', input: { key: 'name' } }], 'tool_use'),
      messageReply([{ type: 'text', text: 'You are Ada.' }]),
    );
    const inbox = store.inbox('alice');
    let finished = nextEvent(events, 'run:finished');
    await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'my name is Ada' } });
    expect((await finished).outcome).toBe('messages');
    expect(await inbox.getMemory()).toEqual({ name: 'Ada' });

    finished = nextEvent(events, 'run:finished');
    await inbox.ingest({ source: 'chat', sourceId: 'm2', payload: { text: 'who am I?' } });
    expect((await finished).outcome).toBe('messages');

    expect(server.requests).toHaveLength(4);
    const last = server.requests[3]!.body as Sent & { system: string; tools: { name: string }[] };
    expect(last.system).toBe('You are terse.');
    expect(last.tools.map((t) => t.name)).toEqual(['remember', 'recall', 'forget', 'list_memory']);
    expect(last.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(last.messages[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'who am I?' }] });
    expect(last.messages[6]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: JSON.stringify({ key: 'name', value: 'Ada' }) }] });
    const sent: string[] = [];
    await inbox.dispatch((body) => void sent.push(body));
    expect(sent).toEqual(['Noted, Ada.\n\nYou are Ada.']);
  });

  it("records each run's usage with its finish, priced by the model the API says answered (agent/prices.ts)", async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const { server, events } = await start(store);
    const sonnet = { model: 'claude-sonnet-4-5-20250929' };
    server.enqueue(
      messageReply([{ type: 'tool_use', id: 'toolu_1', name: 'remember', input: { key: 'name', value: 'Ada' } }], 'tool_use', { ...sonnet, usage: { input_tokens: 1_000, output_tokens: 100 } }),
      messageReply([{ type: 'text', text: 'Noted, Ada.' }], 'end_turn', { ...sonnet, usage: { input_tokens: 2_000, output_tokens: 50, cache_read_input_tokens: 1_000 } }),
    );
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'my name is Ada' } });
    expect((await finished).outcome).toBe('messages');
    const { today } = (await store.inbox('alice').stats()).usage;
    expect(today).toMatchObject({ runs: 1, inputTokens: 3_000, outputTokens: 150, cacheReadTokens: 1_000, unpricedRuns: 0 });
    expect(today.costUsd).toBeCloseTo((3_000 * 3 + 150 * 15 + 1_000 * 0.3) / 1_000_000, 12);
  });

  it('a tool the policy does not name is denied to Claude: the API hears the refusal, the tool never runs, nobody is asked', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    // The agent has all four memory tools; the policy names only recall.
    const { server, events } = await start(store, { recall: 'allow' });
    server.enqueue(
      messageReply([{ type: 'tool_use', id: 'toolu_1', name: 'remember', input: { key: 'name', value: 'Mallory' } }], 'tool_use'),
      messageReply([{ type: 'text', text: 'I could not save that.' }]),
    );
    const inbox = store.inbox('alice');
    const finished = nextEvent(events, 'run:finished');
    await inbox.ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'remember that my name is Mallory' } });
    const run = await finished;
    expect(run.outcome).toBe('messages');
    expect(run.decisions).toMatchObject([{ tool: 'remember', decision: 'deny', reason: 'remember is not permitted for this agent' }]);
    const second = server.requests[1]!.body as Sent;
    expect(second.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Not done: remember is not permitted for this agent', is_error: true }],
    });
    expect(await inbox.getMemory()).toEqual({});
    expect((await inbox.stats()).approvalsPending).toBe(0);
  });

  it('an overloaded API is retried by the SDK within the run; a 400 sends the event dead at once with the API message', async () => {
    const { store } = await tempStore({ outboxGapMs: 0, maxAttempts: 5 });
    const { server, events } = await start(store);
    server.enqueue(overloaded(), messageReply([{ type: 'text', text: 'Hello.' }]));
    let finished = nextEvent(events, 'run:finished');
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'hi' } });
    expect((await finished).outcome).toBe('messages');
    expect(server.requests).toHaveLength(2);

    server.enqueue(apiError(400, 'invalid_request_error', 'messages.0.content: too long'));
    finished = nextEvent(events, 'run:finished');
    await store.inbox('bob').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'x' } });
    expect((await finished).outcome).toBe('dead');
    expect(server.requests).toHaveLength(3);
    const event = await store.inbox('bob').getEvent('chat', 'm1');
    expect(event).toMatchObject({ status: 'dead', attempts: 1 });
    expect(event!.error).toContain('invalid_request_error');
    expect(event!.error).toContain('messages.0.content: too long');
  });
});

describe('the agent vigil serve runs without an agent module', () => {
  it('is the Claude demo when ANTHROPIC_API_KEY is set (read with the config), the demo agent otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-load-agent-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const loaded = async (env: NodeJS.ProcessEnv) => {
      const config = parseConfig({ store: `sqlite:${dir}` }, 'test config', env);
      return loadAgent(config.agent, config.store, config.demo);
    };
    const withKey = await loaded({ ANTHROPIC_API_KEY: 'sk-test' });
    expect(withKey.agent.name).toBe('claude-example');
    expect(withKey.agent.tools.map((t) => t.name)).toEqual(['refund', 'remember', 'recall', 'forget', 'list_memory']);
    expect(withKey.agent.permissions.refund).toEqual({ ask: { expiresInMs: 3_600_000 } });
    expect((await loaded({})).agent.name).toBe('example');
    // A config that names its agent never reads the key for the demo.
    expect(parseConfig({ agent: './agent.ts' }, 'test config', { ANTHROPIC_API_KEY: 'sk-test' }).demo).toEqual({ claude: null });
  });
});
