/**
 * Issue 50's "Done when" for vigil-agents/ai-sdk, against the REAL service
 * process: `vigil serve` on a real SQLite store running toolAgent on
 * aiSdkModel(@ai-sdk/openai-compatible) (test/fixtures/ai-sdk-agent.ts),
 * the model a local fake of the Chat Completions API (examples/fakes/,
 * its default script: "refund order=42" calls refund({order: "42"}), a
 * tool result is answered "Done: <result>"), the tool an AI SDK tool()
 * calling a fake payments server that performs each idempotency key once.
 *
 * SIGKILL after the question goes out, restart, yes: the refund runs once
 * with the approved input and the reply reaches the channel; no and an
 * expiry never run it; a yes for one input never runs another; an execute
 * that throws is told to the model and not run again.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type OpenAIRequest } from '../../examples/fakes/index.js';
import { openStore } from '../../src/index.js';
import type { HeldMessage, Store } from '../../src/store/contract.js';
import { startFakePaymentsServer, type FakePaymentsServer } from '../fixtures/fake-payments-server.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor, journeyRequests } from '../fixtures/service-process.js';

const TOKEN = 'ai-sdk-token-0123456789abcdef0123456';
const INBOX = 'ada';
const AGENT = join(REPO_ROOT, 'test/fixtures/ai-sdk-agent.ts');
/** Long enough for several worker polls (200 ms): what did not happen by then is not coming. */
const QUIET_MS = 1_000;

const harness = new ServiceHarness();
let openai: FakeOpenAI | undefined;
let payments: FakePaymentsServer | undefined;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
  await harness.cleanup();
  await openai?.close();
  await payments?.close();
  openai = undefined;
  payments = undefined;
});

async function start(env: Record<string, string> = {}) {
  openai = await startFakeOpenAI();
  payments = await startFakePaymentsServer();
  const fakeOpenAI = openai;
  const fakePayments = payments;
  const dir = harness.tempDir('vigil-ai-sdk-');
  const receiver = await harness.receiver();
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: AGENT,
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    // A short lease, so a killed service's inbox is taken over soon.
    engine: { outboxGapMs: 0, leaseTtlMs: 1_500, retryBackoff: { baseMs: 50, maxMs: 200 } },
    workers: { pollIntervalMs: 200 },
  });
  const childEnv = { FAKE_OPENAI_URL: fakeOpenAI.url, PAYMENTS_URL: fakePayments.url, ...env };
  let serve = harness.serve(config, childEnv);
  let url = await serve.url();
  const delivered = (): HeldMessage[] => journeyRequests.delivered(receiver) as unknown as HeldMessage[];
  const journey = {
    openai: fakeOpenAI,
    payments: fakePayments,
    delivered,
    get serve() {
      return serve;
    },
    waitForMessage: (what: string, pattern: RegExp, timeoutMs?: number) =>
      waitFor(`a delivered message matching ${pattern} (${what})`, () => delivered().find((message) => pattern.test(message.body)), timeoutMs),
    count: (pattern: RegExp) => delivered().filter((message) => pattern.test(message.body)).length,
    async send(text: string, key: string) {
      expect(await journeyRequests.sendChat(url, TOKEN, INBOX, text, key)).toBe(202);
    },
    async answer(approvalId: string, answer: 'yes' | 'no') {
      return journeyRequests.answer(url, TOKEN, INBOX, approvalId, answer);
    },
    /** SIGKILLs the running `vigil serve` and starts another on the same config and store. */
    async killAndRestart() {
      serve.signal('SIGKILL');
      expect(await serve.exited).toEqual({ code: null, signal: 'SIGKILL' });
      serve = harness.serve(config, childEnv);
      url = await serve.url();
    },
    async store() {
      return (store ??= await openStore(`sqlite:${join(dir, 'data')}`));
    },
  };
  return journey;
}

type Journey = Awaited<ReturnType<typeof start>>;

/** Asks for a refund and waits for the urgent question; returns its approval id. */
async function askForRefund(journey: Journey, order: string): Promise<string> {
  await journey.send(`please refund order=${order}`, `chat-refund-${order}`);
  const question = await journey.waitForMessage('the approval request', new RegExp(`^Approve\\? Refund order ${order}\\n`));
  expect(question.urgent).toBe(true);
  const match = new RegExp(`/a/${INBOX}/([^?\\s]+)\\?`).exec(question.body);
  expect(match, `no approval link in ${JSON.stringify(question.body)}`).not.toBeNull();
  // Asked, not done.
  expect(journey.payments.requests).toHaveLength(0);
  return decodeURIComponent(match![1]!);
}

/** The tool messages (results) of a Chat Completions request. */
const toolMessages = (request: OpenAIRequest) => (request.body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool');

it('SIGKILL after the question goes out, restart, yes: the refund runs exactly once with the approved input; the reply reaches the channel', async () => {
  const journey = await start();
  const approvalId = await askForRefund(journey, '42');
  expect(journey.openai.requests[0]!.body).toMatchObject({ tools: [{ type: 'function', function: { name: 'refund' } }] });

  await journey.killAndRestart();
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  const reply = await journey.waitForMessage('the final reply', /^Done: /, 20_000);

  expect(journey.payments.refunds.map((refund) => refund.order)).toEqual(['42']);
  expect(journey.payments.requests).toHaveLength(1);
  expect(reply.body).toContain('"order":"42"');
  expect(toolMessages(journey.openai.requests[1]!)).toEqual([expect.objectContaining({ content: expect.stringContaining('"order":"42"') })]);
  await sleep(QUIET_MS);
  expect(journey.payments.requests).toHaveLength(1);
  expect(journey.count(/^Done: /)).toBe(1);
  expect(journey.openai.requests).toHaveLength(2);
});

it('no: the refund never runs; the model hears the refusal and its reply reaches the channel', async () => {
  const journey = await start();
  const approvalId = await askForRefund(journey, '42');
  await journey.killAndRestart();
  expect(await journey.answer(approvalId, 'no')).toEqual({ status: 200, body: { outcome: 'no' } });
  await journey.waitForMessage('the reply after the refusal', /^Done: Not done: the user declined this action$/, 20_000);
  await sleep(QUIET_MS);
  expect(journey.payments.requests).toHaveLength(0);
});

it('no answer: the expiry resumes as a refusal; a yes after it changes nothing; the refund never runs', async () => {
  const journey = await start({ ASK_MS: '1500' });
  const approvalId = await askForRefund(journey, '42');
  await journey.killAndRestart();
  await journey.waitForMessage('the reply after the expiry', /^Done: Not done: nobody answered/, 20_000);
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'expired' } });
  await sleep(QUIET_MS);
  expect(journey.payments.requests).toHaveLength(0);
  expect((await (await journey.store()).inbox(INBOX).getEvent('approval', approvalId))?.payload).toMatchObject({ answer: 'expired' });
});

it('a yes for one input never runs another: refund 42 approved runs 42; the model\'s refund 43 is a new question, and the old yes does not cover it', async () => {
  const journey = await start();
  const approvalId = await askForRefund(journey, '42');
  // After the refund of 42, the model tries another order.
  journey.openai.enqueue({ toolCalls: [{ name: 'refund', input: { order: '43' } }] });
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  const second = await journey.waitForMessage('the second question', /^Approve\? Refund order 43\n/);
  const secondId = decodeURIComponent(new RegExp(`/a/${INBOX}/([^?\\s]+)\\?`).exec(second.body)![1]!);
  expect(secondId).not.toBe(approvalId);
  // The first yes again: the standing answer, nothing more runs.
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await sleep(QUIET_MS);
  expect(journey.payments.refunds.map((refund) => refund.order)).toEqual(['42']);
  expect(journey.payments.requests).toHaveLength(1);
});

it('an execute that throws after approval: it ran once, the model hears the error and its reply goes out; it is not run again', async () => {
  const journey = await start();
  const approvalId = await askForRefund(journey, 'fail');
  expect(await journey.answer(approvalId, 'yes')).toEqual({ status: 200, body: { outcome: 'yes' } });
  await journey.waitForMessage('the reply after the failure', /^Done: \{"error":"refund failed: the payments API broke"\}$/, 20_000);
  await sleep(QUIET_MS);
  expect(journey.payments.requests).toHaveLength(1);
  expect(journey.count(/^Done: /)).toBe(1);
  const events = await (await journey.store()).inbox(INBOX).events({ limit: 10 });
  expect(events.map((event) => [event.source, event.status, event.attempts])).toEqual(expect.arrayContaining([['approval', 'done', 1]]));
});
