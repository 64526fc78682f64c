/**
 * Issue 50's "Done when" for vigil-agents/mcp, against the REAL service: a
 * `vigil serve` with a real SQLite store running claudeAgent (the real
 * Anthropic SDK against a local fake Messages API) whose tools come from a
 * real stdio MCP server process (test/fixtures/mcp-tools-agent.ts). The
 * model calls `echo__delete_all`; the policy asks (`echo.*`); the service is
 * SIGKILLed once the question is out and started again; the answer then
 * decides: yes runs the MCP tool exactly once with the approved input (the
 * server's own record), no and an expiry never run it, and a yes for one
 * input never runs another.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import type { HeldMessage, Store } from '../../src/store/contract.js';
import { messageReply, startFakeMessagesServer, type FakeMessagesServer, type RecordedRequest } from '../agent/claude/fake-messages-server.js';
import { recordedCalls } from '../fixtures/mcp-echo-config.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor, type ServeProcess, journeyRequests } from '../fixtures/service-process.js';

const TOKEN = 'mcp-tools-token-0123456789abcdef0123';
const INBOX = 'dana';
const AGENT = join(REPO_ROOT, 'test/fixtures/mcp-tools-agent.ts');
const QUIET_MS = 1_000;

const harness = new ServiceHarness();
let claude: FakeMessagesServer | undefined;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
  await harness.cleanup();
  await claude?.close();
  claude = undefined;
});

interface Block {
  type: string;
  [key: string]: unknown;
}

const text = (value: string): Block => ({ type: 'text', text: value });
const toolUse = (id: string, name: string, input: Record<string, unknown>): Block => ({ type: 'tool_use', id, name, input });

function toolResults(request: RecordedRequest): Block[] {
  const messages = (request.body as { messages: { role: string; content: Block[] }[] }).messages;
  return messages.at(-1)!.content.filter((block) => block.type === 'tool_result');
}

function approvalIdIn(body: string): string {
  const match = new RegExp(`/a/${INBOX}/([^?\\s]+)\\?`).exec(body);
  expect(match, `no approval link in ${JSON.stringify(body)}`).not.toBeNull();
  return decodeURIComponent(match![1]!);
}

async function start(env: Record<string, string> = {}) {
  claude = await startFakeMessagesServer();
  const fake = claude;
  const dir = harness.tempDir('vigil-mcp-service-');
  const recordFile = join(dir, 'mcp-calls.jsonl');
  const receiver = await harness.receiver();
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: AGENT,
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    engine: { outboxGapMs: 0, leaseTtlMs: 1_500, retryBackoff: { baseMs: 50, maxMs: 200 } },
    workers: { pollIntervalMs: 200 },
    // These journeys count events and messages up to an expiry: no reminder in between (test/service/approval-reminders.test.ts has them).
    approvals: { remindAt: null },
  });
  const serveEnv = { FAKE_CLAUDE_URL: fake.url, RECORD_FILE: recordFile, ...env };
  let serve: ServeProcess = harness.serve(config, serveEnv);
  let url = await serve.url();
  const delivered = (): HeldMessage[] => journeyRequests.delivered(receiver) as unknown as HeldMessage[];
  const opened = async (): Promise<Store> => (store ??= await openStore(`sqlite:${join(dir, 'data')}`));
  return {
    claude: fake,
    calls: () => recordedCalls(recordFile),
    delivered,
    waitForMessage: (what: string, pattern: RegExp, timeoutMs?: number) =>
      waitFor(`a delivered message matching ${pattern} (${what})`, () => delivered().find((message) => pattern.test(message.body)), timeoutMs),
    async send(message: string, key: string) {
      expect(await journeyRequests.sendChat(url, TOKEN, INBOX, message, key)).toBe(202);
    },
    async answer(approvalId: string, answer: 'yes' | 'no') {
      return journeyRequests.answer(url, TOKEN, INBOX, approvalId, answer);
    },
    /** SIGKILL, then a second `vigil serve` on the same config and store (and a new MCP child). */
    async killAndRestart() {
      serve.signal('SIGKILL');
      expect(await serve.exited).toEqual({ code: null, signal: 'SIGKILL' });
      serve = harness.serve(config, serveEnv);
      url = await serve.url();
    },
    async settled(count: number, timeoutMs?: number) {
      const inbox = (await opened()).inbox(INBOX);
      await waitFor(`${count} events, all done`, async () => {
        const events = await inbox.events({ limit: 1000 });
        return events.length === count && events.every((event) => event.status === 'done');
      }, timeoutMs);
    },
  };
}

type Journey = Awaited<ReturnType<typeof start>>;

/** "clean tmp": the model calls echo__delete_all { folder: 'tmp' }; the question goes out; nothing ran. */
async function askToDelete(journey: Journey): Promise<string> {
  await journey.send('please clean tmp', 'chat-clean');
  const question = await journey.waitForMessage('the approval request', /^Approve\? echo\.delete_all \{"folder":"tmp"\}\n/);
  expect(question.urgent).toBe(true);
  // The model was shown the mapped names; the question names Vigil's.
  expect((journey.claude.requests[0]!.body as { tools: { name: string }[] }).tools.map((tool) => tool.name).sort()).toEqual([
    'echo__delete_all',
    'echo__env',
    'echo__fail',
    'echo__say',
    'echo__wait',
  ]);
  await journey.settled(1);
  expect(journey.calls()).toEqual([]);
  return approvalIdIn(question.body);
}

it('yes after a SIGKILL and restart: the MCP tool runs exactly once with the approved input, the reply reaches the channel; a different input is asked anew, not run', async () => {
  const journey = await start();
  journey.claude.enqueue(
    messageReply([text('Cleaning.'), toolUse('toolu_del', 'echo__delete_all', { folder: 'tmp' })], 'tool_use'),
    messageReply([text('Deleted tmp.')], 'end_turn'),
    // The next conversation: the same tool, another folder.
    messageReply([toolUse('toolu_home', 'echo__delete_all', { folder: 'home' })], 'tool_use'),
  );
  const approvalId = await askToDelete(journey);
  await journey.killAndRestart();

  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.waitForMessage('the final reply', /^Deleted tmp\.$/);
  expect(journey.calls()).toMatchObject([{ tool: 'delete_all', input: { folder: 'tmp' }, idempotencyKey: expect.any(String) }]);
  expect(toolResults(journey.claude.requests[1]!)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_del', content: JSON.stringify({ deleted: 'tmp', count: 3 }) }]);

  // The yes was for { folder: 'tmp' }: another input is a new question, and runs nothing.
  await journey.send('now clean home', 'chat-home');
  await journey.waitForMessage('the second question', /^Approve\? echo\.delete_all \{"folder":"home"\}\n/);
  await journey.settled(3);
  await sleep(QUIET_MS);
  expect(journey.calls()).toHaveLength(1);
  expect(journey.delivered().filter((message) => /^Deleted tmp\.$/.test(message.body))).toHaveLength(1);
});

it('no after a SIGKILL and restart: the MCP tool never runs; the model hears the refusal and its reply reaches the channel', async () => {
  const journey = await start();
  journey.claude.enqueue(
    messageReply([toolUse('toolu_del', 'echo__delete_all', { folder: 'tmp' })], 'tool_use'),
    messageReply([text('I left tmp alone.')], 'end_turn'),
  );
  const approvalId = await askToDelete(journey);
  await journey.killAndRestart();
  expect(await journey.answer(approvalId, 'no')).toEqual({ status: 200, body: { outcome: 'no' } });
  await journey.waitForMessage('the final reply', /^I left tmp alone\.$/);
  expect(toolResults(journey.claude.requests[1]!)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_del', is_error: true, content: 'Not done: the user declined this action' }]);
  await journey.settled(2);
  await sleep(QUIET_MS);
  expect(journey.calls()).toEqual([]);
});

it('an approval nobody answers expires: the MCP tool never runs, a late yes changes nothing', async () => {
  const journey = await start({ ASK_MS: '1000' });
  journey.claude.enqueue(
    messageReply([toolUse('toolu_del', 'echo__delete_all', { folder: 'tmp' })], 'tool_use'),
    messageReply([text('Nobody answered; tmp is untouched.')], 'end_turn'),
  );
  const approvalId = await askToDelete(journey);
  await journey.waitForMessage('the reply after the expiry', /^Nobody answered; tmp is untouched\.$/, 15_000);
  expect(toolResults(journey.claude.requests[1]!)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_del', is_error: true, content: expect.stringMatching(/^Not done: nobody answered/) }]);
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'expired' } });
  await journey.settled(2);
  await sleep(QUIET_MS);
  expect(journey.calls()).toEqual([]);
});
