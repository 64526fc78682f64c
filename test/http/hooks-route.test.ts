/**
 * POST /hooks/:inbox/:source beyond the signature: routing errors, the body
 * limit enforced while reading, store errors, and the provider specifics
 * (Slack's handshake, Stripe's secret rotation, a bare hex HMAC).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { counterValue, errorOf, eventCount, expectNothingStored, SECRETS, T0, useHttpApps, type TestApp } from './http-harness.js';

async function githubDelivery(id: string, body = JSON.stringify({ action: 'opened', n: id })) {
  return { body, headers: { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': await githubSign(SECRETS.github, body) } };
}

const postGithub = async (t: TestApp, path: string, id = 'd-1') => {
  const { body, headers } = await githubDelivery(id);
  return t.request(path, { method: 'POST', body, headers });
};

describe('POST /hooks/:inbox/:source', () => {
  const apps = useHttpApps();

  it('an unknown source is 404 unknown_source, counted without the name as a label, nothing stored', async () => {
    const t = await apps.make();
    const res = await postGithub(t, '/hooks/alice/gitlab');
    expect(await errorOf(res)).toMatchObject({ status: 404, code: 'unknown_source' });
    await expectNothingStored(t.store);
    expect(await counterValue(t.metrics, 'rejectedSignatures', { source: '(unknown)', reason: 'unknown_source' })).toBe(1);
  });

  it('source names never reach Object.prototype: "constructor" is an unknown source', async () => {
    const t = await apps.make();
    expect(await errorOf(await postGithub(t, '/hooks/alice/constructor'))).toMatchObject({ status: 404, code: 'unknown_source' });
    await expectNothingStored(t.store);
  });

  it.each(['-dash', '.hidden', 'a%2Fb', 'a%20b', 'x'.repeat(129)])('inbox id %s is 400 invalid_inbox_id, nothing stored', async (inbox) => {
    const t = await apps.make();
    expect(await errorOf(await postGithub(t, `/hooks/${inbox}/github`))).toMatchObject({ status: 400, code: 'invalid_inbox_id' });
    await expectNothingStored(t.store);
  });

  it('a body over maxBodyBytes is 413 from its Content-Length, before reading it', async () => {
    const t = await apps.make({ maxBodyBytes: 1024 });
    const { body, headers } = await githubDelivery('d-1', JSON.stringify({ pad: 'x'.repeat(2000) }));
    const res = await t.request('/hooks/alice/github', { method: 'POST', body, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } });
    expect(await errorOf(res)).toMatchObject({ status: 413, code: 'body_too_large' });
    await expectNothingStored(t.store);
  });

  it('a body of exactly maxBodyBytes is accepted', async () => {
    const t = await apps.make({ maxBodyBytes: 256 });
    const body = JSON.stringify({ pad: '' });
    const exact = JSON.stringify({ pad: 'y'.repeat(256 - Buffer.byteLength(body)) });
    expect(Buffer.byteLength(exact)).toBe(256);
    const { headers } = await githubDelivery('d-1', exact);
    expect((await t.request('/hooks/alice/github', { method: 'POST', body: exact, headers })).status).toBe(202);
  });

  it('a body nested deeper than 64 levels is 400 too_deep, however deep, and nothing is stored; 64 levels are stored', async () => {
    const t = await apps.make();
    const nested = (depth: number, open = '[', close = ']') => `{"a":${open.repeat(depth - 1)}1${close.repeat(depth - 1)}}`;
    for (const [depth, open, close] of [[5000, '[', ']'], [65, '{"k":', '}'], [65, '[', ']']] as const) {
      const { body, headers } = await githubDelivery(`deep-${depth}`, nested(depth, open, close));
      expect(await errorOf(await t.request('/hooks/alice/github', { method: 'POST', body, headers }))).toMatchObject({ status: 400, code: 'too_deep' });
    }
    await expectNothingStored(t.store);
    // Brackets inside strings are text, not nesting.
    // The wrapper is one level, and nested(63) sixty-three: 64 in all.
    const { body, headers } = await githubDelivery('ok', JSON.stringify({ text: '['.repeat(5000), deep: JSON.parse(nested(63)) }));
    expect((await t.request('/hooks/alice/github', { method: 'POST', body, headers })).status).toBe(202);
    expect(await eventCount(t.store, 'alice')).toBe(1);
  });

  it('a body that is not UTF-8 is 400 bad_json, not stored with replacement characters', async () => {
    const t = await apps.make();
    const body = Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    // Signed over the exact bytes (octokit signs strings, which cannot hold these), so only the decoding can refuse it.
    const headers = { 'x-github-delivery': 'd-1', 'x-hub-signature-256': 'sha256=' + createHmac('sha256', SECRETS.github).update(body).digest('hex') };
    expect(await errorOf(await t.request('/hooks/alice/github', { method: 'POST', body, headers }))).toMatchObject({ status: 400, code: 'bad_json' });
    await expectNothingStored(t.store);
  });

  it('a key the store refuses (over 256 characters) is 400 invalid_event, nothing stored', async () => {
    const t = await apps.make();
    const res = await postGithub(t, '/hooks/alice/github', 'k'.repeat(300));
    expect(await errorOf(res)).toMatchObject({ status: 400, code: 'invalid_event' });
    await expectNothingStored(t.store);
  });

  it('a closed store is 503 store_closed with Retry-After, and a sender can retry later', async () => {
    const t = await apps.make();
    await t.store.close();
    const res = await postGithub(t, '/hooks/alice/github');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await errorOf(res)).toMatchObject({ status: 503, code: 'store_closed' });
  });

  it('an inbox file that cannot be opened is 503 store_unavailable, logged for the operator', async () => {
    const t = await apps.make();
    mkdirSync(join(t.dir, 'alice.db')); // a directory where the inbox file should be
    const res = await postGithub(t, '/hooks/alice/github');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await errorOf(res)).toMatchObject({ status: 503, code: 'store_unavailable' });
    expect(t.logs().some((line) => line.level === 40 && String(line.msg).includes('store_unavailable'))).toBe(true);
  });

  it('deliveries that arrive together are each acked for themselves; the duplicates among them are 200', async () => {
    const t = await apps.make();
    const ids = ['a', 'b', 'c', 'a', 'b', 'd'];
    const responses = await Promise.all(ids.map((id) => postGithub(t, '/hooks/alice/github', id)));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 202, 202, 202, 202]);
    expect(await eventCount(t.store, 'alice')).toBe(4);
  });

  it('the same delivery id in two inboxes is two events: dedupe is per inbox', async () => {
    const t = await apps.make();
    expect((await postGithub(t, '/hooks/alice/github')).status).toBe(202);
    expect((await postGithub(t, '/hooks/bob/github')).status).toBe(202);
  });

  it('a throwing event:ingested listener does not turn a stored event into a 500 the sender would retry', async () => {
    const t = await apps.make();
    t.events.on('event:ingested', () => {
      throw new Error('listener bug');
    });
    expect((await postGithub(t, '/hooks/alice/github')).status).toBe(202);
    expect(t.logs().some((line) => line.level === 50 && String(line.msg).includes('listener'))).toBe(true);
  });

  describe('Slack', () => {
    function slackSigned(payload: unknown, nowMs = T0) {
      const body = JSON.stringify(payload);
      const timestamp = String(Math.floor(nowMs / 1000));
      const signature = 'v0=' + createHmac('sha256', SECRETS.slack).update(`v0:${timestamp}:${body}`).digest('hex');
      return { body, headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature } };
    }

    it("answers a signed url_verification with its challenge and stores nothing", async () => {
      const t = await apps.make();
      const { body, headers } = slackSigned({ type: 'url_verification', token: 't', challenge: 'abc123' });
      const res = await t.request('/hooks/alice/slack', { method: 'POST', body, headers });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ challenge: 'abc123' });
      await expectNothingStored(t.store);
    });

    it('an unsigned url_verification is 401: the handshake is answered only after the signature', async () => {
      const t = await apps.make();
      const res = await t.request('/hooks/alice/slack', { method: 'POST', body: JSON.stringify({ type: 'url_verification', challenge: 'x' }) });
      expect(await errorOf(res)).toMatchObject({ status: 401, code: 'missing_signature' });
    });

    it('a Slack retry (X-Slack-Retry-Num) of the same event_id is a duplicate', async () => {
      const t = await apps.make();
      const first = slackSigned({ type: 'event_callback', event_id: 'Ev1', event: { type: 'message' } });
      expect((await t.request('/hooks/alice/slack', { method: 'POST', ...first })).status).toBe(202);
      const retry = slackSigned({ type: 'event_callback', event_id: 'Ev1', event: { type: 'message' } }, T0 + 1000);
      t.clock.advance(1000);
      const res = await t.request('/hooks/alice/slack', { method: 'POST', body: retry.body, headers: { ...retry.headers, 'x-slack-retry-num': '1' } });
      expect(res.status).toBe(200);
    });

    /** A form body as Slack sends slash commands and interactivity, signed over its raw bytes. */
    function slackForm(fields: Record<string, string>, secret = SECRETS.slack) {
      const body = new URLSearchParams(fields).toString();
      const timestamp = String(Math.floor(T0 / 1000));
      const signature = 'v0=' + createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
      return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature } };
    }
    const SLASH = { command: '/refund', text: 'order 42 please', user_id: 'U1', channel_id: 'C1', trigger_id: '123.456.abc' };

    it('a slash command (a form) is stored as its fields under its trigger_id, and acknowledged 200 with an empty body', async () => {
      const t = await apps.make();
      const res = await t.request('/hooks/alice/slack', { method: 'POST', ...slackForm(SLASH) });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(''); // Slack posts a non-empty body to the user as a message
      const again = await t.request('/hooks/alice/slack', { method: 'POST', ...slackForm(SLASH) });
      expect(again.status).toBe(200);
      expect(await again.text()).toBe('');
      const events = await t.store.inbox('alice').events();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ source: 'slack', sourceId: '123.456.abc', payload: SLASH });
    });

    it('an interaction (a form whose payload field is JSON) is stored as that JSON, under its trigger_id', async () => {
      const t = await apps.make();
      const interaction = { type: 'block_actions', trigger_id: '789.012.def', user: { id: 'U1' }, actions: [{ action_id: 'approve', value: 'yes' }] };
      const res = await t.request('/hooks/alice/slack', { method: 'POST', ...slackForm({ payload: JSON.stringify(interaction) }) });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
      expect((await t.store.inbox('alice').events()).map((e) => [e.sourceId, e.payload])).toEqual([['789.012.def', interaction]]);
    });

    it('form deliveries are refused like any other: bad signature 401, no trigger_id 400, a payload field that is not JSON 400; nothing stored', async () => {
      const t = await apps.make();
      const forged = slackForm(SLASH, 'not-the-slack-secret');
      expect(await errorOf(await t.request('/hooks/alice/slack', { method: 'POST', ...forged }))).toMatchObject({ status: 401, code: 'bad_signature' });
      const { trigger_id: _dropped, ...keyless } = SLASH;
      expect(await errorOf(await t.request('/hooks/alice/slack', { method: 'POST', ...slackForm(keyless) }))).toMatchObject({ status: 400, code: 'missing_key' });
      expect(await errorOf(await t.request('/hooks/alice/slack', { method: 'POST', ...slackForm({ payload: '{not json' }) }))).toMatchObject({
        status: 400,
        code: 'bad_json',
      });
      await expectNothingStored(t.store);
    });
  });

  it('Stripe during a secret roll: any one of several v1 signatures matching is enough', async () => {
    const t = await apps.make();
    const body = JSON.stringify({ id: 'evt_1', object: 'event' });
    const timestamp = Math.floor(T0 / 1000);
    const good = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRETS.stripe, timestamp });
    const goodV1 = /v1=([0-9a-f]+)/.exec(good)?.[1] as string;
    const header = `t=${timestamp},v1=${'0'.repeat(64)},v1=${goodV1},v0=${'1'.repeat(64)}`;
    expect((await t.request('/hooks/alice/stripe', { method: 'POST', body, headers: { 'stripe-signature': header } })).status).toBe(202);
  });

  it('Stripe: the tolerance comes from the config', async () => {
    const t = await apps.make({ sources: { stripe: { type: 'stripe', secret: SECRETS.stripe, toleranceSeconds: 10 } } });
    const body = JSON.stringify({ id: 'evt_1', object: 'event' });
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRETS.stripe, timestamp: Math.floor(T0 / 1000) - 11 });
    expect(await errorOf(await t.request('/hooks/alice/stripe', { method: 'POST', body, headers: { 'stripe-signature': header } }))).toMatchObject({
      status: 401,
      code: 'stale_timestamp',
    });
    await expectNothingStored(t.store);
  });

  it('generic HMAC accepts a bare hex signature as well as sha256=<hex>', async () => {
    const t = await apps.make();
    const body = JSON.stringify({ order: 1 });
    const hex = createHmac('sha256', SECRETS.hmac).update(body).digest('hex');
    const send = (id: string, signature: string) =>
      t.request('/hooks/alice/acme', { method: 'POST', body, headers: { 'x-acme-delivery': id, 'x-acme-signature': signature } });
    expect((await send('o-1', hex)).status).toBe(202);
    expect((await send('o-2', 'sha256=' + hex.toUpperCase())).status).toBe(202);
    expect((await send('o-3', 'sha1=' + hex)).status).toBe(401);
    expect(await eventCount(t.store, 'alice')).toBe(2);
  });
});
