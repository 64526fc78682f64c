/**
 * Every endpoint of `vigil serve` and every refusal listed in the issue
 * (items 2 and 3), once each, over real HTTP against a real server process
 * on 127.0.0.1. Deliveries are signed with the providers' own libraries.
 * The details of each verifier live in test/http (in-process); this file
 * checks that the process a user runs answers the same way, and that a
 * refusal stores nothing (read back through a second store object on the
 * same SQLite directory, as another process would).
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { sign as githubSign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalUrl } from '../../src/http/approval-links.js';
import { openStore, type Store } from '../../src/index.js';
import { ServiceHarness, type ServeProcess } from '../fixtures/service-process.js';

const TOKEN = 'endpoints-test-token-0123456789abcdef';
const SECRETS = {
  github: 'github-test-secret-0123456789abcdef',
  stripe: 'whsec_stripe_test_secret_0123456789ab',
  standard: 'whsec_' + Buffer.from('standard-webhooks-test-secret!!!').toString('base64'),
  slack: 'slack-test-signing-secret-0123456789',
  hmac: 'hmac-test-secret-0123456789abcdef0123',
};
const MAX_BODY = 64 * 1024;

const harness = new ServiceHarness();
let serve: ServeProcess;
let url: string;
let store: Store;

beforeAll(async () => {
  const dir = harness.tempDir();
  const config = harness.writeConfig(dir, {
    store: `sqlite:${join(dir, 'data')}`,
    port: 0,
    token: TOKEN,
    maxBodyBytes: MAX_BODY,
    sources: {
      github: { type: 'github', secret: 'env:TEST_GITHUB_SECRET' },
      stripe: { type: 'stripe', secret: SECRETS.stripe },
      standard: { type: 'standard-webhooks', secret: SECRETS.standard },
      slack: { type: 'slack', secret: SECRETS.slack },
      hmac: { type: 'hmac', secret: SECRETS.hmac },
    },
    workers: { pollIntervalMs: 200 },
    log: { level: 'info' },
  });
  serve = harness.serve(config, { TEST_GITHUB_SECRET: SECRETS.github });
  url = await serve.url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
});

const now = () => Date.now();
const seconds = (ms: number) => Math.floor(ms / 1000);

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url + path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const code = (json: Record<string, unknown>) => (json.error as { code: string }).code;

/** How many events the inbox holds: what a refusal must leave unchanged. */
async function eventCount(inbox: string): Promise<number> {
  return (await store.inbox(inbox).events({ limit: 10_000 })).length;
}

describe('POST /hooks/:inbox/:source', () => {
  it('GitHub: 202 stored, then 200 duplicate for the redelivery', async () => {
    const body = JSON.stringify({ action: 'opened', issue: { number: 1 } });
    const headers = { 'x-github-delivery': 'gh-1', 'x-hub-signature-256': await githubSign(SECRETS.github, body) };
    expect(await post('/hooks/hooks-gh/github', body, headers)).toEqual({ status: 202, json: { stored: true } });
    expect(await post('/hooks/hooks-gh/github', body, headers)).toEqual({ status: 200, json: { stored: false, duplicate: true } });
    expect((await store.inbox('hooks-gh').getEvent('github', 'gh-1'))?.payload).toEqual({ action: 'opened', issue: { number: 1 } });
  });

  it('GitHub: a bad signature and a missing one are 401, and nothing is stored', async () => {
    const body = JSON.stringify({ action: 'closed' });
    const forged = await post('/hooks/hooks-bad/github', body, { 'x-github-delivery': 'gh-2', 'x-hub-signature-256': await githubSign('wrong', body) });
    expect([forged.status, code(forged.json)]).toEqual([401, 'bad_signature']);
    const unsigned = await post('/hooks/hooks-bad/github', body, { 'x-github-delivery': 'gh-3' });
    expect([unsigned.status, code(unsigned.json)]).toEqual([401, 'missing_signature']);
    expect(await eventCount('hooks-bad')).toBe(0);
  });

  it('Stripe: stored with a fresh signature, 401 stale_timestamp outside the tolerance', async () => {
    const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.refunded' });
    const fresh = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRETS.stripe, timestamp: seconds(now()) });
    expect(await post('/hooks/hooks-stripe/stripe', body, { 'stripe-signature': fresh })).toEqual({ status: 202, json: { stored: true } });
    const staleBody = JSON.stringify({ id: 'evt_2', object: 'event', type: 'charge.refunded' });
    const stale = Stripe.webhooks.generateTestHeaderString({ payload: staleBody, secret: SECRETS.stripe, timestamp: seconds(now()) - 3600 });
    const refused = await post('/hooks/hooks-stripe/stripe', staleBody, { 'stripe-signature': stale });
    expect([refused.status, code(refused.json)]).toEqual([401, 'stale_timestamp']);
    expect(await store.inbox('hooks-stripe').getEvent('stripe', 'evt_2')).toBeNull();
  });

  it('Standard Webhooks: stored under webhook-id; a stale timestamp is 401', async () => {
    const webhook = new Webhook(SECRETS.standard);
    const body = JSON.stringify({ type: 'invoice.paid' });
    const at = new Date(now());
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(seconds(at.getTime())), 'webhook-signature': webhook.sign('msg_1', at, body) };
    expect(await post('/hooks/hooks-std/standard', body, headers)).toEqual({ status: 202, json: { stored: true } });
    const old = new Date(now() - 3600_000);
    const staleHeaders = { 'webhook-id': 'msg_2', 'webhook-timestamp': String(seconds(old.getTime())), 'webhook-signature': webhook.sign('msg_2', old, body) };
    expect((await post('/hooks/hooks-std/standard', body, staleHeaders)).status).toBe(401);
    expect(await store.inbox('hooks-std').getEvent('standard', 'msg_2')).toBeNull();
  });

  it('Slack: v0 signature, keyed by event_id; the url_verification handshake is answered and not stored', async () => {
    const slackHeaders = (body: string, ts: number) => ({
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': 'v0=' + createHmac('sha256', SECRETS.slack).update(`v0:${ts}:${body}`).digest('hex'),
    });
    const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev1', event: { type: 'message', text: 'hi' } });
    expect(await post('/hooks/hooks-slack/slack', event, slackHeaders(event, seconds(now())))).toEqual({ status: 202, json: { stored: true } });
    const handshake = JSON.stringify({ type: 'url_verification', challenge: 'c-123' });
    expect(await post('/hooks/hooks-slack/slack', handshake, slackHeaders(handshake, seconds(now())))).toEqual({ status: 200, json: { challenge: 'c-123' } });
    const stale = await post('/hooks/hooks-slack/slack', event, slackHeaders(event, seconds(now()) - 3600));
    expect([stale.status, code(stale.json)]).toEqual([401, 'stale_timestamp']);
    expect(await eventCount('hooks-slack')).toBe(1);
  });

  it('generic HMAC: the configured signature and key headers', async () => {
    const body = JSON.stringify({ text: 'from a script' });
    const signature = createHmac('sha256', SECRETS.hmac).update(body).digest('hex');
    expect(await post('/hooks/hooks-hmac/hmac', body, { 'x-signature': signature, 'x-delivery-id': 'h-1' })).toEqual({ status: 202, json: { stored: true } });
  });

  it('404 unknown source, 400 invalid inbox id, 413 over the body limit, 400 bad JSON: nothing stored', async () => {
    const body = JSON.stringify({ action: 'x' });
    const signed = async (text: string) => ({ 'x-github-delivery': `d-${text.length}`, 'x-hub-signature-256': await githubSign(SECRETS.github, text) });

    const unknown = await post('/hooks/hooks-refused/gitlab', body, await signed(body));
    expect([unknown.status, code(unknown.json)]).toEqual([404, 'unknown_source']);

    const badInbox = await post('/hooks/Not%20An%20Inbox!/github', body, await signed(body));
    expect(badInbox.status).toBe(400);
    expect(code(badInbox.json)).toBe('invalid_inbox_id');

    const big = JSON.stringify({ filler: 'x'.repeat(MAX_BODY) });
    const tooLarge = await post('/hooks/hooks-refused/github', big, await signed(big));
    expect([tooLarge.status, code(tooLarge.json)]).toEqual([413, 'body_too_large']);

    const notJson = '{"action": ';
    const badJson = await post('/hooks/hooks-refused/github', notJson, await signed(notJson));
    expect([badJson.status, code(badJson.json)]).toEqual([400, 'bad_json']);

    expect(await eventCount('hooks-refused')).toBe(0);
    expect(await store.inboxes()).not.toContain('Not An Inbox!');
  });
});

describe('POST /inboxes/:inbox/messages (bearer token)', () => {
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('stores a message keyed by Idempotency-Key: 202, then 200 duplicate', async () => {
    const headers = { ...auth, 'idempotency-key': 'msg-1' };
    expect(await post('/inboxes/api-msg/messages', JSON.stringify({ text: 'hello' }), headers)).toEqual({ status: 202, json: { stored: true } });
    expect(await post('/inboxes/api-msg/messages', JSON.stringify({ text: 'hello' }), headers)).toEqual({ status: 200, json: { stored: false, duplicate: true } });
    expect((await store.inbox('api-msg').getEvent('chat', 'msg-1'))?.payload).toEqual({ text: 'hello' });
  });

  it('401 without the token or with a wrong one; 400 without Idempotency-Key or text', async () => {
    const body = JSON.stringify({ text: 'hello' });
    const none = await post('/inboxes/api-refused/messages', body, { 'idempotency-key': 'k' });
    expect([none.status, code(none.json)]).toEqual([401, 'unauthorized']);
    const wrong = await post('/inboxes/api-refused/messages', body, { authorization: 'Bearer nope', 'idempotency-key': 'k' });
    expect(wrong.status).toBe(401);
    const noKey = await post('/inboxes/api-refused/messages', body, auth);
    expect([noKey.status, code(noKey.json)]).toEqual([400, 'missing_key']);
    const noText = await post('/inboxes/api-refused/messages', JSON.stringify({ words: 'x' }), { ...auth, 'idempotency-key': 'k2' });
    expect(noText.status).toBe(400);
    expect(await eventCount('api-refused')).toBe(0);
  });
});

describe('POST /inboxes/:inbox/approvals/:id', () => {
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('answers; the outcome that stands comes back; unknown is 404, a bad answer 400', async () => {
    await store.inbox('api-approve').requestApproval({ id: 'refund-1', expiresInMs: 3600_000, action: { type: 'refund', order: '1' } });
    expect(await post('/inboxes/api-approve/approvals/refund-1', JSON.stringify({ answer: 'yes' }), auth)).toEqual({ status: 200, json: { outcome: 'yes' } });
    expect(await post('/inboxes/api-approve/approvals/refund-1', JSON.stringify({ answer: 'no' }), auth)).toEqual({ status: 200, json: { outcome: 'yes' } });
    const unknown = await post('/inboxes/api-approve/approvals/never-asked', JSON.stringify({ answer: 'yes' }), auth);
    expect([unknown.status, code(unknown.json)]).toEqual([404, 'unknown_approval']);
    const bad = await post('/inboxes/api-approve/approvals/refund-1', JSON.stringify({ answer: 'maybe' }), auth);
    expect([bad.status, code(bad.json)]).toEqual([400, 'invalid_answer']);
  });
});

describe('one-tap approval links /a/:inbox/:id', () => {
  it('GET shows a confirm page, POST answers; a forged link is 403; a lapsed link answers nothing', async () => {
    const inbox = store.inbox('links');
    await inbox.requestApproval({ id: 'refund-7', expiresInMs: 3600_000, action: { type: 'refund', order: '7' } });
    // The server signs links with its token when no linkSecret is set.
    const link = approvalUrl(url, TOKEN, { inboxId: 'links', approvalId: 'refund-7', expiresAt: now() + 3600_000 });

    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<form[^>]*method="post"/i);

    const forged = await fetch(link.replace(/sig=[^&]+/, 'sig=forged'));
    expect(forged.status).toBe(403);

    const answered = await fetch(link, { method: 'POST', body: 'answer=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(answered.status).toBe(200);
    expect(((await inbox.getEvent('approval', 'refund-7'))?.payload as { answer: string }).answer).toBe('yes');

    await inbox.requestApproval({ id: 'refund-8', expiresInMs: 3600_000, action: { type: 'refund', order: '8' } });
    const lapsed = approvalUrl(url, TOKEN, { inboxId: 'links', approvalId: 'refund-8', expiresAt: now() - 1 });
    expect(await (await fetch(lapsed)).text()).toMatch(/expired/i);
    await fetch(lapsed, { method: 'POST', body: 'answer=yes', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(await inbox.getEvent('approval', 'refund-8')).toBeNull();
  });
});

describe('health and metrics', () => {
  it('GET /healthz is 200 ok', async () => {
    const response = await fetch(`${url}/healthz`);
    expect([response.status, await response.json()]).toEqual([200, { ok: true, status: 'ok' }]);
  });

  it('GET /metrics is Prometheus text with the service counters', async () => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    for (const name of [
      'vigil_events_ingested_total',
      'vigil_events_duplicate_total',
      'vigil_webhook_rejected_total',
      'vigil_runs_total',
      'vigil_run_duration_seconds',
      'vigil_lease_takeovers_total',
      'vigil_events_dead_total',
      'vigil_outbox_held',
      'vigil_outbox_sent_total',
      'vigil_channel_failures_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(text).toMatch(/vigil_events_ingested_total\{source="github"\} [1-9]/);
    expect(text).toMatch(/vigil_webhook_rejected_total\{source="github",reason="bad_signature"\} [1-9]/);
  });

  it('an unknown route is a JSON 404', async () => {
    const response = await fetch(`${url}/nothing-here`);
    expect(response.status).toBe(404);
    expect(code((await response.json()) as Record<string, unknown>)).toBe('not_found');
  });
});
