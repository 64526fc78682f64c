/**
 * Approvals that remind, against the REAL service process: `vigil serve`
 * with a real SQLite store, running the deferred-tools claudeAgent
 * (test/fixtures/deferred-tools-agent.ts: `refund` asked about, its
 * approval open ASK_MS) against a local fake Messages API, with
 * `approvals.remindAt` in the config. The reminder reaches the webhook
 * channel once, urgent, with a link to the same approval that answers it;
 * the model is not called for it.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import type { HeldMessage } from '../../src/store/contract.js';
import { messageReply, startFakeMessagesServer, type FakeMessagesServer } from '../agent/claude/fake-messages-server.js';
import { startFakePaymentsServer, type FakePaymentsServer } from '../fixtures/fake-payments-server.js';
import { CHANNEL_SECRET, REPO_ROOT, ServiceHarness, waitFor, journeyRequests } from '../fixtures/service-process.js';

const TOKEN = 'reminder-token-0123456789abcdef012345';
const INBOX = 'dana';
const AGENT = join(REPO_ROOT, 'test/fixtures/deferred-tools-agent.ts');
/** The approval's life: long enough for a loaded machine's run and send, short enough to wait out its half. */
const ASK_MS = 8_000;

const harness = new ServiceHarness();
let claude: FakeMessagesServer | undefined;
let payments: FakePaymentsServer | undefined;

afterEach(async () => {
  await harness.cleanup();
  await claude?.close();
  await payments?.close();
  claude = undefined;
  payments = undefined;
});

it('one urgent reminder with a link to the same approval reaches the channel at the configured share; answering through it runs the tool once', async () => {
  claude = await startFakeMessagesServer();
  payments = await startFakePaymentsServer();
  const dir = harness.tempDir('vigil-remind-');
  const receiver = await harness.receiver();
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: AGENT,
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
    approvals: { remindAt: 0.5 },
  });
  const serve = harness.serve(config, { FAKE_CLAUDE_URL: claude.url, PAYMENTS_URL: payments.url, ASK_MS: String(ASK_MS) });
  const url = await serve.url();
  const delivered = (): HeldMessage[] => journeyRequests.delivered(receiver) as unknown as HeldMessage[];
  const waitForMessage = (what: string, pattern: RegExp): Promise<HeldMessage> =>
    waitFor(`a delivered message matching ${pattern} (${what})`, () => delivered().find((message) => pattern.test(message.body)), ASK_MS);

  claude.enqueue(
    messageReply([{ type: 'tool_use', id: 'toolu_refund', name: 'refund', input: { order: '42' } }], 'tool_use'),
    messageReply([{ type: 'text', text: 'Refunded order 42.' }], 'end_turn'),
  );
  expect(await journeyRequests.sendChat(url, TOKEN, INBOX, 'please refund order 42', 'chat-1')).toBe(202);
  const question = await waitForMessage('the question', /^Approve\? Refund order 42\n/);
  const asked = Date.now();
  const questionLink = new URL(question.body.split('\n')[1]!);

  const reminder = await waitForMessage('the reminder', /^Reminder: /);
  // Not before half the approval's life (the question reached the channel after it was asked).
  expect(Date.now() - asked).toBeGreaterThanOrEqual(ASK_MS / 2 - 1_000);
  expect(reminder.urgent).toBe(true);
  expect(reminder.body).toContain('Refund order 42');
  const reminderLink = new URL(reminder.body.split('\n')[1]!);
  // The same approval and the same signed summary; its exp is the stored deadline (at or after the question's).
  expect(reminderLink.pathname).toBe(questionLink.pathname);
  expect(reminderLink.searchParams.get('q')).toBe(questionLink.searchParams.get('q'));
  expect(Number(reminderLink.searchParams.get('exp'))).toBeGreaterThanOrEqual(Number(questionLink.searchParams.get('exp')));
  expect(claude.requests).toHaveLength(1); // the runtime sent it; the model was not asked
  // Due at the config's share, as the store recorded it.
  const store = await openStore(`sqlite:${join(dir, 'data')}`);
  try {
    const approval = await store.inbox(INBOX).getApproval(decodeURIComponent(questionLink.pathname.split('/')[3]!));
    expect(approval!.remindAt! - approval!.requestedAt).toBe(ASK_MS / 2);
    expect(approval!.remindedAt).toEqual(expect.any(Number));
  } finally {
    await store.close();
  }

  // The reminder's link answers the approval: its page shows the exact input, its form says yes.
  const page = await (await fetch(reminderLink)).text();
  expect(page).toContain('Yes runs the tool <code>refund</code> with exactly this input:');
  const tap = await fetch(reminderLink, { method: 'POST', body: new URLSearchParams({ answer: 'yes' }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(tap.status).toBe(200);
  await waitForMessage('the final reply', /^Refunded order 42\.$/);
  expect(payments.refunds.map((refund) => refund.order)).toEqual(['42']);

  // Once: past the deadline nothing more is sent.
  await sleep(Math.max(0, asked + ASK_MS + 500 - Date.now()));
  expect(delivered().map((message) => message.body.split('\n')[0]!.replace(/until \S+Z/, 'until …'))).toEqual([
    'Approve? Refund order 42',
    'Reminder: still waiting for your answer, until …: Refund order 42',
    'Refunded order 42.',
  ]);
});
