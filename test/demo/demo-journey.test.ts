/**
 * The demo agent end to end, as a user meets it: a real `vigil serve`
 * process with the built-in agent and a webhook channel pointed at a local
 * receiver. A signed webhook and a chat message each get a reply; "refund
 * order 42" gets an urgent message with a one-tap link, the link's page,
 * a yes, and the refund performed once, and a second tap changes nothing;
 * a no refunds nothing; a digest after missed days says how many it covers.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it } from 'vitest';
import type { RefundRecord } from '../../src/demo/refund-ledger.js';
import { openStore } from '../../src/index.js';
import { CHANNEL_SECRET, ServiceHarness, waitFor, type Receiver } from '../fixtures/service-process.js';

const TOKEN = 'journey-token-0123456789abcdef012345';
const GITHUB_SECRET = 'journey-github-secret-0123456789abc';
const INBOX = 'alice';
const DAY = 86_400_000;

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

/** The text of every batch the channel delivered, after checking its Standard Webhooks signature. */
function delivered(receiver: Receiver): string[] {
  const webhook = new Webhook(CHANNEL_SECRET);
  return receiver.received.map((request) => {
    const payload = webhook.verify(request.body, request.headers as Record<string, string>) as { inbox: string; body: string };
    expect(payload.inbox).toBe(INBOX);
    return payload.body;
  });
}

function waitForMessage(receiver: Receiver, what: string, pattern: RegExp): Promise<string> {
  return waitFor(`a delivered message matching ${pattern} (${what})`, () => delivered(receiver).find((body) => pattern.test(body)));
}

const occurrences = (receiver: Receiver, pattern: RegExp) => delivered(receiver).filter((body) => pattern.test(body)).length;

it('webhook and chat replies, refund after a yes exactly once, no refund after a no, a digest for missed days', async () => {
  const dir = harness.tempDir();
  const dataDir = join(dir, 'data');
  const receiver = await harness.receiver();
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    sources: { github: { type: 'github', secret: GITHUB_SECRET } },
    channels: { webhook: { url: receiver.url, secret: CHANNEL_SECRET } },
    // Every reply goes out at once, so each step's message can be awaited.
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config);
  const url = await serve.url();
  const store = await openStore(`sqlite:${dataDir}`);
  try {
    const inbox = store.inbox(INBOX);
    const api = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(url + path, { method: 'POST', body: JSON.stringify(body), headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers } });

    // A signed webhook → run → outbox → the webhook channel.
    const hook = JSON.stringify({ action: 'opened', issue: { number: 12, title: 'Crash on save' } });
    const ack = await fetch(`${url}/hooks/${INBOX}/github`, {
      method: 'POST',
      body: hook,
      headers: { 'content-type': 'application/json', 'x-github-delivery': 'delivery-1', 'x-hub-signature-256': await githubSign(GITHUB_SECRET, hook) },
    });
    expect(ack.status).toBe(202);
    expect(await waitForMessage(receiver, 'webhook reply', /delivery-1/)).toBe('Got a github webhook (opened), delivery delivery-1.');
    // The first run scheduled the daily digest.
    expect((await inbox.timers()).map((t) => t.id)).toEqual(['daily-digest']);

    // A chat message gets an answer.
    expect((await api(`/inboxes/${INBOX}/messages`, { text: 'hello there' }, { 'idempotency-key': 'chat-1' })).status).toBe(202);
    expect(await waitForMessage(receiver, 'chat reply', /^You said: "hello there"/)).toBe('You said: "hello there". (Try "refund order 42" to see an approval.)');

    // "refund order 42": an urgent message carrying the one-tap link, nothing refunded yet.
    expect((await api(`/inboxes/${INBOX}/messages`, { text: 'please refund order 42' }, { 'idempotency-key': 'chat-2' })).status).toBe(202);
    const urgent = await waitForMessage(receiver, 'approval request', /^URGENT: approve a refund of order 42/);
    expect(urgent).toMatch(/^URGENT: approve a refund of order 42\?/);
    const link = /(http:\/\/\S+\/a\/\S+)/.exec(urgent)![1]!;
    expect(link.startsWith(`${url}/a/${INBOX}/refund-42?`)).toBe(true);
    const ledger = join(dataDir, 'example-refunds.jsonl');
    expect(existsSync(ledger)).toBe(false);

    // The link's page asks; it answers nothing by itself.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/name="answer" value="yes"/);
    expect(html).toContain('Refund order 42'); // what is asked, in words, not the action's JSON
    expect(await inbox.getEvent('approval', 'refund-42')).toBeNull();

    // Tap yes: the refund happens, once.
    const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    expect((await fetch(link, { ...form, body: 'answer=yes' })).status).toBe(200);
    expect(await waitForMessage(receiver, 'refund done', /^Refunded order 42\.$/)).toBe('Refunded order 42.');
    const refunds = (): RefundRecord[] =>
      readFileSync(ledger, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as RefundRecord);
    expect(refunds().map((r) => [r.inboxId, r.order, r.approvalId])).toEqual([[INBOX, '42', 'refund-42']]);

    // A second tap, and a "no" through the API: yes stands, nothing new is stored or run.
    const eventsBefore = (await inbox.events({ limit: 1000 })).length;
    expect((await fetch(link, { ...form, body: 'answer=no' })).status).toBe(200);
    expect(await (await api(`/inboxes/${INBOX}/approvals/refund-42`, { answer: 'no' })).json()).toEqual({ outcome: 'yes' });
    expect((await inbox.events({ limit: 1000 })).length).toBe(eventsBefore);
    const stats = await inbox.stats();
    expect([stats.events.pending, stats.events.running]).toEqual([0, 0]);
    expect(refunds()).toHaveLength(1);
    expect(occurrences(receiver, /Refunded order 42/)).toBe(1);

    // "refund order 43", answered no: the agent says so and refunds nothing.
    expect((await api(`/inboxes/${INBOX}/messages`, { text: 'refund order 43' }, { 'idempotency-key': 'chat-3' })).status).toBe(202);
    await waitForMessage(receiver, 'second approval request', /^URGENT: approve a refund of order 43/);
    expect(await (await api(`/inboxes/${INBOX}/approvals/refund-43`, { answer: 'no' })).json()).toEqual({ outcome: 'no' });
    expect(await waitForMessage(receiver, 'no refund', /Did not refund order 43/)).toBe('Did not refund order 43: you said no.');
    expect(refunds().map((r) => r.order)).toEqual(['42']);

    // The digest after an outage: its occurrences from three days back coalesce into one event.
    const today9 = Math.floor(Date.now() / DAY) * DAY + 9 * 3_600_000;
    const lastDue = today9 <= Date.now() ? today9 : today9 - DAY;
    await inbox.addTimer({ id: 'daily-digest', cron: '0 9 * * *', tz: 'UTC', due: lastDue - 3 * DAY, payload: { task: 'daily digest' } });
    const digest = await waitForMessage(receiver, 'digest', /^Daily digest/);
    const fired = (await inbox.events({ limit: 1000 })).find((e) => e.source === 'timer' && e.sourceId.startsWith('daily-digest@'))!;
    const skipped = (fired.payload as { skipped: number }).skipped;
    expect(skipped).toBeGreaterThanOrEqual(3);
    expect(digest).toBe(`Daily digest: covers ${skipped + 1} days; no dead events.`);

    // Every delivery carried a distinct batch id: nothing was delivered twice.
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);

    // The journey shows in the metrics: runs by outcome, their duration, what the channel sent.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^vigil_runs_total\{outcome="messages"\} [1-9]/m);
    expect(metrics).toMatch(/^vigil_run_duration_seconds_count [1-9]/m);
    const messagesSent = receiver.received.reduce((n, r) => n + (JSON.parse(r.body) as { messages: unknown[] }).messages.length, 0);
    expect(metrics).toMatch(new RegExp(`^vigil_outbox_sent_total\\{channel="webhook"\\} ${messagesSent}$`, 'm'));
    expect(metrics).toMatch(/^vigil_events_ingested_total\{source="chat"\} 3$/m);
  } finally {
    await store.close();
  }
});
