/**
 * Issue 5's "Done when", against the REAL service process: `vigil serve`
 * with a real SQLite store, running a claudeAgent (test/fixtures/
 * deferred-tools-agent.ts) whose model is the real SDK talking to a local
 * fake Messages API server, and whose `refund` tool (permission: ask) calls
 * a fake payments server that performs each idempotency key once.
 *
 * A deferred call answered yes runs the tool exactly once (also when the
 * service is SIGKILLed while the tool's request is in flight); no and an
 * expiry reach the model as refusals; a second tap changes nothing; two
 * approvals of one turn answered in reverse order each resume once and the
 * model goes on once; a run with nothing to say sends nothing; the question
 * is urgent and skips the outbox's pacing.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import type { HeldMessage, Store } from '../../src/store/contract.js';
import { apiError, messageReply, startFakeMessagesServer, type FakeMessagesServer, type RecordedRequest } from '../agent/claude/fake-messages-server.js';
import { startFakePaymentsServer, type FakePaymentsServer } from '../fixtures/fake-payments-server.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor, type ServeProcess, journeyRequests } from '../fixtures/service-process.js';

const TOKEN = 'deferred-token-0123456789abcdef01234';
const INBOX = 'dana';
const AGENT = join(REPO_ROOT, 'test/fixtures/deferred-tools-agent.ts');
/** Long enough for several worker polls (200 ms) and outbox passes: what did not happen by then is not coming. */
const QUIET_MS = 1_500;

const harness = new ServiceHarness();
let claude: FakeMessagesServer | undefined;
let payments: FakePaymentsServer | undefined;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
  // Kills every `vigil serve` it started (SIGKILL, by PID) and removes the temp dirs.
  await harness.cleanup();
  await claude?.close();
  await payments?.close();
  claude = undefined;
  payments = undefined;
});

interface ContentBlock {
  type: string;
  [key: string]: unknown;
}

const text = (value: string): ContentBlock => ({ type: 'text', text: value });
const toolUse = (id: string, name: string, input: Record<string, unknown>): ContentBlock => ({ type: 'tool_use', id, name, input });
const refundAnswer = (refund: string, order: string): string => JSON.stringify({ refund, order, status: 'succeeded' });

/** The content of the last (user) message a model request carried. */
function lastUserContent(request: RecordedRequest): ContentBlock[] {
  const messages = (request.body as { messages: { role: string; content: ContentBlock[] }[] }).messages;
  const last = messages[messages.length - 1]!;
  expect(last.role).toBe('user');
  return last.content;
}

const toolResults = (request: RecordedRequest): ContentBlock[] => lastUserContent(request).filter((block) => block.type === 'tool_result');

/** The approval id in an urgent message's one-tap link. */
function approvalIdIn(body: string): string {
  const match = new RegExp(`/a/${INBOX}/([^?\\s]+)\\?`).exec(body);
  expect(match, `no approval link in ${JSON.stringify(body)}`).not.toBeNull();
  return decodeURIComponent(match![1]!);
}

interface Journey {
  dir: string;
  serve: ServeProcess;
  url: string;
  claude: FakeMessagesServer;
  payments: FakePaymentsServer;
  /** Every message the webhook channel delivered, in order (batches flattened). */
  delivered(): HeldMessage[];
  waitForMessage(what: string, pattern: RegExp, timeoutMs?: number): Promise<HeldMessage>;
  count(pattern: RegExp): number;
  send(text: string, key: string): Promise<void>;
  answer(approvalId: string, answer: 'yes' | 'no', baseUrl?: string): Promise<{ status: number; body: unknown }>;
  /** A second `vigil serve` on the same config and store. */
  restart(): Promise<{ serve: ServeProcess; url: string }>;
  store(): Promise<Store>;
  /** Waits until the inbox holds `count` events, all done. */
  settled(count: number, timeoutMs?: number): Promise<void>;
}

async function start(options: { engine?: Record<string, unknown>; env?: Record<string, string> } = {}): Promise<Journey> {
  claude = await startFakeMessagesServer();
  payments = await startFakePaymentsServer();
  const fakeClaude = claude;
  const fakePayments = payments;
  const dir = harness.tempDir('vigil-deferred-');
  const receiver = await harness.receiver();
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: AGENT,
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    // A short lease, so a killed worker's inbox is taken over soon; retries wait briefly.
    engine: { outboxGapMs: 0, leaseTtlMs: 1_500, retryBackoff: { baseMs: 50, maxMs: 200 }, ...options.engine },
    workers: { pollIntervalMs: 200 },
    // These journeys count events and messages up to an expiry: no reminder in between (test/service/approval-reminders.test.ts has them).
    approvals: { remindAt: null },
  });
  const env = { FAKE_CLAUDE_URL: fakeClaude.url, PAYMENTS_URL: fakePayments.url, ...options.env };
  const serve = harness.serve(config, env);
  const url = await serve.url();

  const delivered = (): HeldMessage[] => journeyRequests.delivered(receiver) as unknown as HeldMessage[];
  const openedStore = async (): Promise<Store> => (store ??= await openStore(`sqlite:${join(dir, 'data')}`));
  return {
    dir,
    serve,
    url,
    claude: fakeClaude,
    payments: fakePayments,
    delivered,
    waitForMessage: (what, pattern, timeoutMs) =>
      waitFor(`a delivered message matching ${pattern} (${what})`, () => delivered().find((message) => pattern.test(message.body)), timeoutMs),
    count: (pattern) => delivered().filter((message) => pattern.test(message.body)).length,
    async send(message, key) {
      expect(await journeyRequests.sendChat(url, TOKEN, INBOX, message, key)).toBe(202);
    },
    async answer(approvalId, answer, baseUrl = url) {
      return journeyRequests.answer(baseUrl, TOKEN, INBOX, approvalId, answer);
    },
    async restart() {
      const next = harness.serve(config, env);
      return { serve: next, url: await next.url() };
    },
    store: openedStore,
    async settled(count, timeoutMs) {
      const inbox = (await openedStore()).inbox(INBOX);
      await waitFor(
        `${count} events, all done`,
        async () => {
          const events = await inbox.events({ limit: 1000 });
          return events.length === count && events.every((event) => event.status === 'done');
        },
        timeoutMs,
      );
    },
  };
}

/** Sends "refund order 42" and waits for the urgent question; the model's first reply calls refund. */
async function askForRefund(journey: Journey, modelCallsBefore = 0): Promise<{ approvalId: string; question: HeldMessage }> {
  await journey.send('please refund order 42', 'chat-refund-42');
  const question = await journey.waitForMessage('the approval request', /^Approve\? Refund order 42\n/);
  const approvalId = approvalIdIn(question.body);
  expect(approvalId).toMatch(/^tool-/);
  expect(question.urgent).toBe(true);
  expect(journey.claude.requests).toHaveLength(modelCallsBefore + 1);
  expect(journey.claude.requests[modelCallsBefore]!.body).toMatchObject({ tools: [{ name: 'refund' }, { name: 'lookup' }] });
  // Asked, not done.
  expect(journey.payments.requests).toHaveLength(0);
  return { approvalId, question };
}

it('yes: the refund runs exactly once, the model gets its result, the reply reaches the channel once', async () => {
  const journey = await start();
  journey.claude.enqueue(
    // An allowed tool runs at once, in the same run; the asked one waits for a person.
    messageReply([text('Let me check the order.'), toolUse('toolu_lookup', 'lookup', { order: '42' })], 'tool_use'),
    messageReply([toolUse('toolu_refund', 'refund', { order: '42' })], 'tool_use'),
    messageReply([text('Refunded order 42.')], 'end_turn'),
  );
  await journey.send('please refund order 42', 'chat-1');
  const question = await journey.waitForMessage('the approval request', /^Approve\? Refund order 42\n/);
  expect(question.urgent).toBe(true);
  const approvalId = approvalIdIn(question.body);
  expect(approvalId).toMatch(/^tool-/);
  expect(journey.claude.requests).toHaveLength(2);
  expect(toolResults(journey.claude.requests[1]!)).toEqual([
    { type: 'tool_result', tool_use_id: 'toolu_lookup', content: JSON.stringify({ order: '42', status: 'delivered', amount: 1999 }) },
  ]);
  expect(journey.payments.requests).toHaveLength(0);
  // The link's page says what is asked.
  const link = /(http:\/\/\S+)/.exec(question.body)![1]!;
  expect(await (await fetch(link)).text()).toContain('Refund order 42');

  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.waitForMessage('the final reply', /^Refunded order 42\.$/);

  expect(journey.payments.refunds.map((refund) => refund.order)).toEqual(['42']);
  expect(journey.payments.requests).toHaveLength(1);
  expect(journey.payments.requests[0]!.idempotencyKey).toEqual(expect.any(String));
  expect(journey.claude.requests).toHaveLength(3);
  expect(toolResults(journey.claude.requests[2]!)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_refund', content: refundAnswer('re_1', '42') }]);
  // The whole conversation went back: the question, both tool turns, both results.
  const roles = (journey.claude.requests[2]!.body as { messages: { role: string }[] }).messages.map((m) => m.role);
  expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);

  await journey.settled(2); // the chat message and the approval event
  await sleep(QUIET_MS);
  expect(journey.count(/Refunded order 42/)).toBe(1);
  expect(journey.delivered().map((message) => message.body.split('\n')[0])).toEqual(['Approve? Refund order 42', 'Refunded order 42.']);
  expect(journey.claude.requests).toHaveLength(3);
  expect(journey.payments.requests).toHaveLength(1);
});

it('yes, then SIGKILL while the refund is in flight: the restarted service finishes it, one refund for the same key', async () => {
  const journey = await start();
  journey.claude.enqueue(messageReply([toolUse('toolu_refund_42', 'refund', { order: '42' })], 'tool_use'), messageReply([text('Refunded order 42.')], 'end_turn'));
  const { approvalId } = await askForRefund(journey);

  // The payments server performs the refund but keeps its answer: the service is killed before it reads it.
  journey.payments.hold();
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await waitFor('the refund request in flight', () => journey.payments.held === 1);
  expect(journey.payments.refunds).toHaveLength(1);
  journey.serve.signal('SIGKILL');
  expect(await journey.serve.exited).toEqual({ code: null, signal: 'SIGKILL' });
  journey.payments.release();
  expect(journey.claude.requests).toHaveLength(1);
  expect(journey.count(/Refunded/)).toBe(0);

  // The next process takes the inbox over once the dead one's lease lapses and retries the approval event.
  const second = await journey.restart();
  await journey.waitForMessage('the final reply from the restarted service', /^Refunded order 42\.$/);

  // Retried with the same key: asked twice, performed once, and the model heard the first refund's answer.
  expect(journey.payments.requests).toHaveLength(2);
  expect(journey.payments.requests[1]!.idempotencyKey).toBe(journey.payments.requests[0]!.idempotencyKey);
  expect(journey.payments.refunds).toHaveLength(1);
  expect(journey.claude.requests).toHaveLength(2);
  expect(toolResults(journey.claude.requests[1]!)).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_refund_42', content: refundAnswer('re_1', '42') }]);

  await journey.settled(2);
  const approvalEvent = await (await journey.store()).inbox(INBOX).getEvent('approval', approvalId);
  expect(approvalEvent).toMatchObject({ status: 'done', attempts: 2 });
  await sleep(QUIET_MS);
  // Exactly once here, not merely at least once: the kill landed while the tool's
  // request was held, before the run could finish, so the killed run stored no
  // reply; only the restarted run's finish did. (A kill after a finish, between
  // the channel's send and its "sent" mark, would repeat the batch: at least once.)
  expect(journey.count(/^Refunded order 42\.$/)).toBe(1);
  expect(journey.claude.requests).toHaveLength(2);
  expect(journey.payments.refunds).toHaveLength(1);
  expect(await (await fetch(`${second.url}/metrics`)).text()).toMatch(/^vigil_lease_takeovers_total 1$/m);
});

it('no: the model gets an is_error tool_result saying the user declined; nothing is refunded', async () => {
  const journey = await start();
  journey.claude.enqueue(
    messageReply([toolUse('toolu_refund_42', 'refund', { order: '42' })], 'tool_use'),
    messageReply([text('Understood, order 42 was not refunded.')], 'end_turn'),
  );
  const { approvalId } = await askForRefund(journey);

  expect(await journey.answer(approvalId, 'no')).toEqual({ status: 200, body: { outcome: 'no' } });
  await journey.waitForMessage('the reply after the refusal', /^Understood, order 42 was not refunded\.$/);
  expect(journey.claude.requests).toHaveLength(2);
  expect(toolResults(journey.claude.requests[1]!)).toEqual([
    { type: 'tool_result', tool_use_id: 'toolu_refund_42', is_error: true, content: expect.stringMatching(/^Not done: .*declined/) },
  ]);
  await journey.settled(2);
  await sleep(QUIET_MS);
  expect(journey.payments.requests).toHaveLength(0);
  expect(journey.claude.requests).toHaveLength(2);
});

it('no answer: the expiry resumes the session as a refusal ("nobody answered"); nothing is refunded', async () => {
  const journey = await start({ env: { ASK_MS: '1500' } });
  journey.claude.enqueue(
    messageReply([toolUse('toolu_refund_42', 'refund', { order: '42' })], 'tool_use'),
    messageReply([text('Nobody answered, so order 42 was not refunded.')], 'end_turn'),
  );
  const { approvalId } = await askForRefund(journey);

  await journey.waitForMessage('the reply after the expiry', /^Nobody answered, so order 42 was not refunded\.$/, 20_000);
  expect(journey.claude.requests).toHaveLength(2);
  expect(toolResults(journey.claude.requests[1]!)).toEqual([
    { type: 'tool_result', tool_use_id: 'toolu_refund_42', is_error: true, content: expect.stringMatching(/^Not done: nobody answered/) },
  ]);
  const inbox = (await journey.store()).inbox(INBOX);
  expect(await inbox.getEvent('approval', approvalId)).toMatchObject({ status: 'done', payload: expect.objectContaining({ answer: 'expired' }) });

  // A yes after the deadline changes nothing.
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'expired' } });
  await journey.settled(2);
  await sleep(QUIET_MS);
  expect(journey.payments.requests).toHaveLength(0);
  expect(journey.claude.requests).toHaveLength(2);
});

it('a second tap after yes changes nothing: the standing outcome, no model call, no second refund', async () => {
  const journey = await start();
  journey.claude.enqueue(messageReply([toolUse('toolu_refund_42', 'refund', { order: '42' })], 'tool_use'), messageReply([text('Refunded order 42.')], 'end_turn'));
  const { approvalId, question } = await askForRefund(journey);
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.waitForMessage('the final reply', /^Refunded order 42\.$/);
  await journey.settled(2);
  const inbox = (await journey.store()).inbox(INBOX);
  const eventsBefore = await inbox.events({ limit: 1000 });
  const deliveredBefore = journey.delivered().length;

  // Tapped again, through the API and through the one-tap link, yes and no.
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  expect(await journey.answer(approvalId, 'no')).toEqual({ status: 200, body: { outcome: 'yes' } });
  const link = /(http:\/\/\S+)/.exec(question.body)![1]!;
  const tap = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'answer=no' });
  expect(tap.status).toBe(200);

  await sleep(QUIET_MS);
  expect(await inbox.events({ limit: 1000 })).toEqual(eventsBefore);
  expect(journey.claude.requests).toHaveLength(2);
  expect(journey.payments.requests).toHaveLength(1);
  expect(journey.payments.refunds).toHaveLength(1);
  expect(journey.delivered()).toHaveLength(deliveredBefore);
});

it('two approvals in one turn, answered in reverse order: each refund runs once, the model goes on once with both results', async () => {
  const journey = await start();
  journey.claude.enqueue(
    messageReply(
      [text('Refunding both.'), toolUse('toolu_r1', 'refund', { order: '1' }), toolUse('toolu_r2', 'refund', { order: '2' })],
      'tool_use',
    ),
    messageReply([text('Refunded orders 1 and 2.')], 'end_turn'),
  );
  await journey.send('refund orders 1 and 2', 'chat-1');
  const ask1 = await journey.waitForMessage('the question for order 1', /^Approve\? Refund order 1\n/);
  const ask2 = await journey.waitForMessage('the question for order 2', /^Approve\? Refund order 2\n/);
  const [id1, id2] = [approvalIdIn(ask1.body), approvalIdIn(ask2.body)];
  expect(id1).not.toBe(id2);
  expect([ask1.urgent, ask2.urgent]).toEqual([true, true]);
  const inbox = (await journey.store()).inbox(INBOX);
  expect((await inbox.stats()).approvalsPending).toBe(2);

  // Order 2 first: its refund runs, but the model waits for the other answer.
  expect(await journey.answer(id2, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.settled(2);
  expect(journey.payments.refunds.map((refund) => refund.order)).toEqual(['2']);
  await sleep(QUIET_MS);
  expect(journey.claude.requests).toHaveLength(1);
  expect(journey.delivered()).toHaveLength(2); // the two questions, nothing else

  // Then order 1: its refund runs and the model is called again, once, with both results.
  expect(await journey.answer(id1, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.waitForMessage('the final reply', /^Refunded orders 1 and 2\.$/);
  expect(journey.payments.refunds.map((refund) => refund.order)).toEqual(['2', '1']);
  expect(journey.claude.requests).toHaveLength(2);
  const results = toolResults(journey.claude.requests[1]!).sort((a, b) => String(a.tool_use_id).localeCompare(String(b.tool_use_id)));
  expect(results).toEqual([
    { type: 'tool_result', tool_use_id: 'toolu_r1', content: refundAnswer('re_2', '1') },
    { type: 'tool_result', tool_use_id: 'toolu_r2', content: refundAnswer('re_1', '2') },
  ]);
  // The results answer the turn that asked: it is the assistant message right before them.
  const messages = (journey.claude.requests[1]!.body as { messages: { role: string; content: ContentBlock[] }[] }).messages;
  expect(messages.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'text' }, { id: 'toolu_r1' }, { id: 'toolu_r2' }] });

  await journey.settled(3);
  for (const id of [id1, id2]) expect(await inbox.getEvent('approval', id)).toMatchObject({ status: 'done', attempts: 1 });
  await sleep(QUIET_MS);
  expect(journey.claude.requests).toHaveLength(2);
  expect(journey.payments.requests).toHaveLength(2);
  expect(new Set(journey.payments.requests.map((request) => request.idempotencyKey)).size).toBe(2);
  expect(journey.count(/^Refunded orders 1 and 2\.$/)).toBe(1);
});

it('a run with nothing to say sends no message', async () => {
  const journey = await start();
  // The model answers, but with only whitespace.
  journey.claude.enqueue(messageReply([text('  \n ')], 'end_turn'));
  await journey.send('anything new?', 'chat-1');
  await journey.settled(1);
  await journey.serve.log('the run finished with nothing', (line) => line.msg === 'run finished' && line.outcome === 'nothing');
  await sleep(QUIET_MS);
  expect(journey.claude.requests).toHaveLength(1);
  expect(journey.delivered()).toEqual([]);
  expect((await (await journey.store()).inbox(INBOX).stats()).outbox).toEqual({ held: 0, sent: 0, undeliverable: 0, rejected: 0 });
});

it('the question is urgent: it reaches the channel at once while pacing holds a normal message', async () => {
  // One paced message per ten minutes.
  const journey = await start({ engine: { outboxGapMs: 600_000 } });
  journey.claude.enqueue(
    messageReply([text('Hi.')], 'end_turn'),
    messageReply([toolUse('toolu_refund_42', 'refund', { order: '42' })], 'tool_use'),
    messageReply([text('Refunded order 42.')], 'end_turn'),
  );
  // The first paced message goes out (no gap to wait for yet) and starts the gap.
  await journey.send('hello', 'chat-hello');
  await journey.waitForMessage('the first, paced, reply', /^Hi\.$/);

  // Inside the gap, the question still goes out at once.
  const { approvalId } = await askForRefund(journey, 1);
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.settled(3);
  expect(journey.payments.refunds).toHaveLength(1);
  await sleep(QUIET_MS);
  // The normal reply waits out the gap.
  expect(journey.count(/Refunded/)).toBe(0);
  expect((await (await journey.store()).inbox(INBOX).stats()).outbox).toEqual({ held: 1, sent: 2, undeliverable: 0, rejected: 0 });
});

// Found while writing the tests above, fixed in the tool loop, tools and call-agent.

it('two identical calls in one turn are one action: one question, one refund, a result for each tool_use', async () => {
  const journey = await start();
  journey.claude.enqueue(
    messageReply([toolUse('toolu_a', 'refund', { order: '42' }), toolUse('toolu_b', 'refund', { order: '42' })], 'tool_use'),
    messageReply([text('Done.')], 'end_turn'),
  );
  await journey.send('refund order 42', 'chat-1');
  const question = await journey.waitForMessage('the question', /^Approve\? Refund order 42\n/);
  await journey.settled(1);
  expect(await journey.answer(approvalIdIn(question.body), 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.waitForMessage('the final reply', /^Done\.$/);
  expect(journey.claude.requests).toHaveLength(2);
  // The Messages API refuses a history where a tool_use has no tool_result right after it.
  expect(toolResults(journey.claude.requests[1]!).map((block) => block.tool_use_id)).toEqual(['toolu_a', 'toolu_b']);
  expect(journey.payments.refunds).toHaveLength(1);
});

it('the asking run fails after asking: nothing is asked until a run that asks succeeds; its question expires and resumes as a refusal', async () => {
  // lookup of 'fail-once' throws the first time (a flaky API): the run that asked fails and is retried after 3 s.
  const journey = await start({ env: { ASK_MS: '1000' }, engine: { retryBackoff: { baseMs: 3_000, maxMs: 3_000 } } });
  const turn = messageReply([toolUse('toolu_r', 'refund', { order: '42' }), toolUse('toolu_l', 'lookup', { order: 'fail-once' })], 'tool_use');
  journey.claude.enqueue(
    turn,
    turn, // the retry's model call: the lookup works now, the refund is asked
    messageReply([text('Order 42 was not refunded: nobody answered.')], 'end_turn'),
    messageReply([text('Hello again.')], 'end_turn'),
  );
  await journey.send('please refund order 42', 'chat-1');
  // The failed run's ask was never stored (approvals go with the finish): only the retry's question goes out.
  await journey.waitForMessage('the question (from the retry)', /^Approve\? Refund order 42\n/, 20_000);
  await journey.waitForMessage('the answer after the expiry', /^Order 42 was not refunded/, 20_000);
  expect(journey.count(/^Approve\?/)).toBe(1);
  const results = toolResults(journey.claude.requests[2]!);
  expect(results.map((block) => block.tool_use_id)).toEqual(['toolu_l', 'toolu_r']);
  expect(results[1]).toMatchObject({ is_error: true });
  expect(String(results[1]!.content)).toContain('nobody answered');
  await journey.send('hello?', 'chat-2');
  await journey.waitForMessage('the next answer', /^Hello again\.$/);
  expect(journey.claude.requests).toHaveLength(4);
  expect(journey.payments.refunds).toEqual([]);
});

it('after a whitespace-only reply (nothing sent), the next message still gets an answer', async () => {
  const journey = await start();
  const replies = [messageReply([text('  \n ')], 'end_turn'), messageReply([text('Hi.')], 'end_turn')];
  // What the real Messages API answers to a whitespace-only text block in the history.
  journey.claude.setFallback((request) => {
    const messages = (request.body as { messages: { content: ContentBlock[] }[] }).messages;
    const blank = messages.some((m) => m.content.some((b) => b.type === 'text' && String(b.text).trim() === ''));
    if (blank) return apiError(400, 'invalid_request_error', 'messages: text content blocks must contain non-whitespace text');
    return replies.shift()!;
  });
  await journey.send('anything new?', 'chat-1');
  await journey.settled(1);
  expect(journey.delivered()).toEqual([]);
  await journey.send('hello', 'chat-2');
  // FAILS: times out; chat-2 goes dead (and so does every later message: the session keeps the blank turn).
  await journey.waitForMessage('the answer to hello', /^Hi\.$/, 10_000);
});

it('a 400 from the model (TerminalError) makes the event dead at once, with the reason', async () => {
  const journey = await start();
  journey.claude.enqueue(apiError(400, 'invalid_request_error', 'messages: something the API will never accept'));
  await journey.send('hello', 'chat-1');
  const inbox = (await journey.store()).inbox(INBOX);
  const dead = await waitFor('the event dead', async () => (await inbox.events({ status: 'dead', limit: 10 }))[0]);
  // FAILS: attempts 3, error 'too many attempts' (retried as an ordinary error; the API's reason is lost).
  expect(dead).toMatchObject({ attempts: 1, error: expect.stringContaining('400 invalid_request_error') });
  expect(journey.claude.requests).toHaveLength(1);
});
