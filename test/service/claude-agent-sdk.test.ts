/**
 * Issue 50's "Done when" for the Claude Agent SDK adapter, against the real
 * service: `vigil serve` (SQLite) running claudeAgentSdk
 * (test/fixtures/claude-agent-sdk-agent.ts), whose Claude Code child talks
 * to a local streaming fake of the Messages API only through `vigil proxy`,
 * which holds the real key. A refund asked about survives a SIGKILL of the
 * service: the restarted one (with a fresh work folder, so only the inbox
 * holds the transcript) resumes the session on the answer; yes runs the
 * refund exactly once with the approved input and the model's reply reaches
 * the channel; no and an expiry never run it. The service's secrets never
 * reach the child, and the model API sees only the proxy's key.
 */
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import type { HeldMessage, Store } from '../../src/store/contract.js';
import { PLACEHOLDER_KEY } from '../../src/adapters/claude-agent-sdk/child-env.js';
import { callTools, resultText, say, startFakeClaudeStream, toolResults, type FakeClaudeStream } from '../fixtures/fake-claude-stream.js';
import { startFakePaymentsServer, type FakePaymentsServer } from '../fixtures/fake-payments-server.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor, type ServeProcess, journeyRequests } from '../fixtures/service-process.js';

const TOKEN = 'sdk-service-token-0123456789abcdef0123';
const INBOX = 'dana';
const AGENT = join(REPO_ROOT, 'test/fixtures/claude-agent-sdk-agent.ts');
const REAL_KEY = 'sk-ant-real-key-held-by-the-proxy-only';
const CANARY = 'service-secret-canary-9f3e';
const REFUND = 'mcp__vigil__refund';

const harness = new ServiceHarness();
let claude: FakeClaudeStream | undefined;
let payments: FakePaymentsServer | undefined;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
  await harness.cleanup();
  await claude?.close();
  await payments?.close();
  claude = undefined;
  payments = undefined;
});

interface Journey {
  claude: FakeClaudeStream;
  payments: FakePaymentsServer;
  serve: ServeProcess;
  url: string;
  delivered(): HeldMessage[];
  waitForMessage(what: string, pattern: RegExp, timeoutMs?: number): Promise<HeldMessage>;
  send(text: string, key: string): Promise<void>;
  answer(approvalId: string, answer: 'yes' | 'no', baseUrl?: string): Promise<number>;
  restart(): Promise<string>;
  store(): Promise<Store>;
}

async function start(env: Record<string, string> = {}): Promise<Journey> {
  claude = await startFakeClaudeStream();
  payments = await startFakePaymentsServer();
  const fake = claude;
  const dir = harness.tempDir('vigil-sdk-service-');
  const proxyConfig = harness.writeConfig(dir, { maxBodyBytes: 8_000_000, upstreams: { anthropic: { url: fake.url, header: 'x-api-key', value: 'env:REAL_ANTHROPIC_KEY', methods: ['POST'], paths: ['/v1/messages'] } } }, 'proxy.json');
  const proxy = harness.start(['proxy', '--config', proxyConfig, '--port', '0'], { env: { REAL_ANTHROPIC_KEY: REAL_KEY } });
  const proxyUrl = (await proxy.log('vigil proxy listening', (line) => line.msg.startsWith('vigil proxy listening on '))).url as string;
  const receiver = await harness.receiver();
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: AGENT,
    proxy: { url: proxyUrl },
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    engine: { outboxGapMs: 0, leaseTtlMs: 3_000, retryBackoff: { baseMs: 50, maxMs: 200 } },
    workers: { pollIntervalMs: 200 },
  });
  const baseEnv = { PAYMENTS_URL: payments.url, VIGIL_CANARY_SECRET: CANARY, ...env };
  const serve = harness.serve(config, { ...baseEnv, WORK_DIR: harness.tempDir('vigil-sdk-work-') });
  const url = await serve.url();
  const delivered = (): HeldMessage[] => journeyRequests.delivered(receiver) as unknown as HeldMessage[];
  return {
    claude: fake,
    payments,
    serve,
    url,
    delivered,
    // Generous: a loaded machine starts Claude Code slowly, and a resume it did not carry out is tried again.
    waitForMessage: (what, pattern, timeoutMs = 90_000) => waitFor(`a delivered message matching ${pattern} (${what})`, () => delivered().find((message) => pattern.test(message.body)), timeoutMs),
    async send(text, key) {
      expect(await journeyRequests.sendChat(url, TOKEN, INBOX, text, key)).toBe(202);
    },
    async answer(approvalId, answer, baseUrl = url) {
      return (await journeyRequests.answer(baseUrl, TOKEN, INBOX, approvalId, answer)).status;
    },
    // Another work folder: the restarted service has none of the first one's Claude Code files.
    restart: () => harness.serve(config, { ...baseEnv, WORK_DIR: harness.tempDir('vigil-sdk-work-') }).url(),
    store: async () => (store ??= await openStore(`sqlite:${join(dir, 'data')}`)),
  };
}

function approvalIdIn(body: string): string {
  const match = new RegExp(`/a/${INBOX}/([^?\\s]+)\\?`).exec(body);
  expect(match, `no approval link in ${JSON.stringify(body)}`).not.toBeNull();
  return decodeURIComponent(match![1]!);
}

/** Asks for the refund, then SIGKILLs the service once the question is out, and starts another. */
async function askThenCrash(journey: Journey): Promise<{ approvalId: string; url: string }> {
  await journey.send('please refund order 42', 'chat-refund-42');
  const question = await journey.waitForMessage('the approval request', /^Approve\? Refund order 42\n/);
  expect(question.urgent).toBe(true);
  expect(journey.payments.requests).toHaveLength(0);
  journey.serve.signal('SIGKILL');
  await journey.serve.exited;
  return { approvalId: approvalIdIn(question.body), url: await journey.restart() };
}

it('yes after a SIGKILL and restart: the refund runs exactly once with the approved input; the reply reaches the channel; secrets stay out of the child', async () => {
  const journey = await start();
  journey.claude.enqueue(callTools(['tu_refund', REFUND, { order: '42' }]));
  // Done only once the refund's result came back: a resume whose call Claude Code did not run yet is retried.
  journey.claude.setFallback((request) => say(toolResults(request).some((result) => resultText(result.content).includes('succeeded')) ? 'Refunded order 42.' : 'It did not go through.'));
  const { approvalId, url } = await askThenCrash(journey);
  expect(await journey.answer(approvalId, 'yes', url)).toBe(200);
  await journey.waitForMessage('the final reply', /^Refunded order 42\.$/);
  expect(journey.payments.refunds.map((refund) => refund.order)).toEqual(['42']);
  expect(journey.payments.requests).toHaveLength(1);
  expect(toolResults(journey.claude.turns.at(-1)!).map((result) => [result.tool_use_id, JSON.parse(resultText(result.content)) as unknown])).toEqual([
    ['tu_refund', expect.objectContaining({ order: '42' })],
  ]);
  // The model API saw the proxy's key only; the child held a placeholder, and nothing of the service's secrets.
  for (const request of journey.claude.requests) {
    expect(request.headers['x-api-key']).toBe(REAL_KEY);
    expect(request.raw).not.toContain(CANARY);
    expect(request.raw).not.toContain(PLACEHOLDER_KEY);
  }
}, 150_000);

it('no after a restart: the refund never runs and the model hears the refusal', async () => {
  const journey = await start();
  journey.claude.enqueue(callTools(['tu_refund', REFUND, { order: '42' }]), say('Understood: order 42 was not refunded.'));
  const { approvalId, url } = await askThenCrash(journey);
  expect(await journey.answer(approvalId, 'no', url)).toBe(200);
  await journey.waitForMessage('the reply after no', /^Understood: order 42 was not refunded\.$/);
  expect(journey.payments.requests).toHaveLength(0);
  const [result] = toolResults(journey.claude.turns[1]!);
  expect(result).toMatchObject({ tool_use_id: 'tu_refund', is_error: true });
}, 150_000);

it('an expired approval resumes as a refusal: the refund never runs', async () => {
  const journey = await start({ ASK_MS: '2000' });
  journey.claude.enqueue(callTools(['tu_refund', REFUND, { order: '42' }]), say('Nobody answered, so order 42 was not refunded.'));
  await askThenCrash(journey);
  await journey.waitForMessage('the reply after the expiry', /^Nobody answered, so order 42 was not refunded\.$/);
  expect(journey.payments.requests).toHaveLength(0);
  const session = (await (await journey.store()).inbox(INBOX).getSession()) as { decisions: { decision: string }[] };
  expect(session.decisions.at(-1)).toMatchObject({ decision: 'expired' });
}, 150_000);
