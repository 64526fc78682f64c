/**
 * The bearer-token API: user messages deduped on Idempotency-Key, and
 * answers to approvals that return the outcome that stands (R8).
 */
import { describe, expect, it } from 'vitest';
import { counterValue, errorOf, eventCount, expectNothingStored, SECRETS, T0, useHttpApps, type TestApp } from './http-harness.js';

const auth = { authorization: `Bearer ${SECRETS.token}`, 'content-type': 'application/json' };

const sendMessage = (t: TestApp, body: unknown, headers: Record<string, string> = {}, inbox = 'alice') =>
  t.app.hono.request(`/inboxes/${inbox}/messages`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { ...auth, ...headers } });

const answer = (t: TestApp, id: string, body: unknown, headers: Record<string, string> = auth) =>
  t.app.hono.request(`/inboxes/alice/approvals/${id}`, { method: 'POST', body: JSON.stringify(body), headers });

describe('POST /inboxes/:inbox/messages', () => {
  const apps = useHttpApps();

  it('stores {text} under ("chat", Idempotency-Key): 202 new, 200 duplicate on a retry', async () => {
    const t = await apps.make();
    const heard = t.events.next('event:ingested');
    const first = await sendMessage(t, { text: 'hello agent' }, { 'idempotency-key': 'm-1' });
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ stored: true });
    expect(await heard).toEqual({ inboxId: 'alice', source: 'chat', sourceId: 'm-1', stored: true });
    const retry = await sendMessage(t, { text: 'hello agent' }, { 'idempotency-key': 'm-1' });
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ stored: false, duplicate: true });
    const [event, ...rest] = await t.store.inbox('alice').events();
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ source: 'chat', sourceId: 'm-1', payload: { text: 'hello agent' } });
    expect(await counterValue(t.metrics, 'ingested', { source: 'chat' })).toBe(1);
    expect(await counterValue(t.metrics, 'duplicates', { source: 'chat' })).toBe(1);
  });

  it('without Idempotency-Key it is 400 missing_key, nothing stored', async () => {
    const t = await apps.make();
    expect(await errorOf(await sendMessage(t, { text: 'hi' }))).toMatchObject({ status: 400, code: 'missing_key' });
    await expectNothingStored(t.store);
  });

  it.each([
    ['no text', { message: 'hi' }],
    ['empty text', { text: '  ' }],
    ['text not a string', { text: 42 }],
    ['not an object', ['hi']],
  ])('%s is 400 invalid_message, nothing stored', async (_what, body) => {
    const t = await apps.make();
    expect(await errorOf(await sendMessage(t, body, { 'idempotency-key': 'm-1' }))).toMatchObject({ status: 400, code: 'invalid_message' });
    await expectNothingStored(t.store);
  });

  it('bad JSON is 400 bad_json, nothing stored', async () => {
    const t = await apps.make();
    expect(await errorOf(await sendMessage(t, '{"text":', { 'idempotency-key': 'm-1' }))).toMatchObject({ status: 400, code: 'bad_json' });
    await expectNothingStored(t.store);
  });

  it('a body over maxBodyBytes is 413, nothing stored', async () => {
    const t = await apps.make({ maxBodyBytes: 100 });
    expect(await errorOf(await sendMessage(t, { text: 'x'.repeat(200) }, { 'idempotency-key': 'm-1' }))).toMatchObject({ status: 413, code: 'body_too_large' });
    await expectNothingStored(t.store);
  });

  it('an invalid inbox id is 400 invalid_inbox_id, nothing stored', async () => {
    const t = await apps.make();
    expect(await errorOf(await sendMessage(t, { text: 'hi' }, { 'idempotency-key': 'm-1' }, '.secret'))).toMatchObject({ status: 400, code: 'invalid_inbox_id' });
    await expectNothingStored(t.store);
  });

  it.each([
    ['no Authorization header', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token' }],
    ['a token of another length', { authorization: `Bearer ${SECRETS.token}x` }],
    ['another scheme', { authorization: `Basic ${SECRETS.token}` }],
  ])('%s is 401 unauthorized with WWW-Authenticate, nothing stored', async (_what, headers: Record<string, string>) => {
    const t = await apps.make();
    const res = await t.app.hono.request('/inboxes/alice/messages', {
      method: 'POST',
      body: JSON.stringify({ text: 'hi' }),
      headers: { 'idempotency-key': 'm-1', ...headers },
    });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await errorOf(res)).toMatchObject({ status: 401, code: 'unauthorized' });
    await expectNothingStored(t.store);
  });

  it('the scheme is case-insensitive: "bearer <token>" is accepted', async () => {
    const t = await apps.make();
    const res = await sendMessage(t, { text: 'hi' }, { 'idempotency-key': 'm-1', authorization: `bearer ${SECRETS.token}` });
    expect(res.status).toBe(202);
  });

  it('with no token in the config the API is off: 403 api_disabled saying to set one, nothing stored', async () => {
    const t = await apps.make({ token: undefined });
    const res = await sendMessage(t, { text: 'hi' }, { 'idempotency-key': 'm-1' });
    const error = await errorOf(res);
    expect(error).toMatchObject({ status: 403, code: 'api_disabled' });
    expect(error.message).toMatch(/set "token"/);
    await expectNothingStored(t.store);
  });
});

describe('POST /inboxes/:inbox/approvals/:id', () => {
  const apps = useHttpApps();

  async function withApproval(t: TestApp, id = 'refund-1', expiresInMs = 60_000) {
    await t.store.inbox('alice').requestApproval({ id, expiresInMs, action: { type: 'refund', amount: 500 } });
  }

  it('a yes within the deadline stands: 200 {"outcome":"yes"}, stored once as the approval event', async () => {
    const t = await apps.make();
    await withApproval(t);
    const heard = t.events.next('approval:answered');
    const res = await answer(t, 'refund-1', { answer: 'yes' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ outcome: 'yes' });
    expect(await heard).toEqual({ inboxId: 'alice', approvalId: 'refund-1', outcome: 'yes' });
    expect((await t.store.inbox('alice').getEvent('approval', 'refund-1'))?.payload).toMatchObject({ answer: 'yes' });
  });

  it('a later no does not change it: the outcome that stands is still yes', async () => {
    const t = await apps.make();
    await withApproval(t);
    await answer(t, 'refund-1', { answer: 'yes' });
    const res = await answer(t, 'refund-1', { answer: 'no' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ outcome: 'yes' });
    expect(await eventCount(t.store, 'alice')).toBe(1);
  });

  it('an answer after the deadline is the expiry', async () => {
    const t = await apps.make();
    await withApproval(t, 'refund-1', 60_000);
    t.clock.set(T0 + 60_000);
    expect(await (await answer(t, 'refund-1', { answer: 'yes' })).json()).toEqual({ outcome: 'expired' });
  });

  it('an approval never requested is 404 unknown_approval', async () => {
    const t = await apps.make();
    expect(await errorOf(await answer(t, 'nope', { answer: 'yes' }))).toMatchObject({ status: 404, code: 'unknown_approval' });
    await expectNothingStored(t.store);
  });

  it.each([{ answer: 'maybe' }, { answer: true }, {}])('%j is 400 invalid_answer, nothing stored', async (body) => {
    const t = await apps.make();
    await withApproval(t);
    expect(await errorOf(await answer(t, 'refund-1', body))).toMatchObject({ status: 400, code: 'invalid_answer' });
    expect(await eventCount(t.store, 'alice')).toBe(0);
  });

  it('needs the bearer token: 401 without it, and nothing is answered', async () => {
    const t = await apps.make();
    await withApproval(t);
    expect(await errorOf(await answer(t, 'refund-1', { answer: 'yes' }, { 'content-type': 'application/json' }))).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(await t.store.inbox('alice').getEvent('approval', 'refund-1')).toBeNull();
  });

  it('is disabled with no token in the config: 403 api_disabled', async () => {
    const t = await apps.make({ token: undefined });
    await withApproval(t);
    expect(await errorOf(await answer(t, 'refund-1', { answer: 'yes' }))).toMatchObject({ status: 403, code: 'api_disabled' });
    expect(await t.store.inbox('alice').getEvent('approval', 'refund-1')).toBeNull();
  });
});

describe('GET and PATCH /inboxes/:inbox/settings', () => {
  const apps = useHttpApps();
  const patch = (t: TestApp, body: string, headers: Record<string, string> = auth) =>
    t.app.hono.request('/inboxes/alice/settings', { method: 'PATCH', body, headers: { ...headers, 'content-type': 'application/merge-patch+json' } });

  it('reads {} for a new inbox; a merge patch answers 200 with the whole settings after it, which a GET then shows', async () => {
    const t = await apps.make();
    expect(await (await t.app.hono.request('/inboxes/alice/settings', { headers: auth })).json()).toEqual({});
    const set = await patch(t, JSON.stringify({ contacts: { slack: 'D0123' }, outbox: { gapMs: 0 } }));
    expect([set.status, await set.json()]).toEqual([200, { contacts: { slack: 'D0123' }, outbox: { gapMs: 0 } }]);
    const removed = await patch(t, JSON.stringify({ outbox: { gapMs: null } }));
    expect(await removed.json()).toEqual({ contacts: { slack: 'D0123' } });
    expect(await (await t.app.hono.request('/inboxes/alice/settings', { headers: auth })).json()).toEqual({ contacts: { slack: 'D0123' } });
  });

  it.each([
    ['an unknown time zone', JSON.stringify({ outbox: { quietHours: { from: '22:00', to: '07:00', timeZone: 'Nowhere/Land' } } }), 'outbox.quietHours.timeZone'],
    ['a negative gap', JSON.stringify({ outbox: { gapMs: -1 } }), 'outbox.gapMs'],
    // Issue 49, finding 1: accepted, this gap put the next paced send past 2^53 and broke every read of the row.
    ['a gap of 2^53-1 ms', '{"outbox":{"gapMs":9007199254740991}}', 'outbox.gapMs'],
    ['a gap of ten years and a millisecond', JSON.stringify({ outbox: { gapMs: 315_576_000_001 } }), 'outbox.gapMs'],
    ['a debounce of 2^53-1 ms', '{"wake":{"debounceMs":9007199254740991}}', 'wake.debounceMs'],
    ['a daily limit of 2^53-1', '{"outbox":{"dailyLimit":9007199254740991}}', 'outbox.dailyLimit'],
    ['an unknown key', JSON.stringify({ pace: 1 }), 'pace'],
  ])('%s is 400 invalid_settings naming the field, and nothing changes', async (_what, body, field) => {
    const t = await apps.make();
    await patch(t, JSON.stringify({ outbox: { gapMs: 5 } }));
    const res = await patch(t, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: 'invalid_settings', message: expect.stringContaining(field), field } });
    expect(await t.store.inbox('alice').settings()).toEqual({ outbox: { gapMs: 5 } });
  });

  it('a body that is not JSON is 400, and both need the bearer token (401, nothing changed)', async () => {
    const t = await apps.make();
    expect((await patch(t, '{not json')).status).toBe(400);
    expect((await patch(t, JSON.stringify({ outbox: { gapMs: 0 } }), {})).status).toBe(401);
    expect((await t.app.hono.request('/inboxes/alice/settings')).status).toBe(401);
    await expectNothingStored(t.store);
  });
});

describe('DELETE /inboxes/:inbox', () => {
  const apps = useHttpApps();
  const remove = (t: TestApp, headers: Record<string, string> = auth, inbox = 'alice') => t.app.hono.request(`/inboxes/${inbox}`, { method: 'DELETE', headers });

  it('removes the inbox and everything it holds (204); an old key then ingests as new; again it is 404', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').ingest({ source: 'chat', sourceId: 'm-1', payload: { text: 'hi' } });
    await t.store.inbox('bob').ingest({ source: 'chat', sourceId: 'm-1' });
    const res = await remove(t);
    expect(res.status).toBe(204);
    expect(await t.store.inboxes()).toEqual(['bob']);
    expect(await t.store.inbox('alice').ingest({ source: 'chat', sourceId: 'm-1' })).toBe(true);
    await t.store.deleteInbox('alice');
    expect(await errorOf(await remove(t))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('is 409 inbox_busy while a worker holds the inbox, and changes nothing', async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'm-1' });
    await inbox.acquire('worker');
    expect(await errorOf(await remove(t))).toMatchObject({ status: 409, code: 'inbox_busy' });
    expect((await inbox.stats()).events.pending).toBe(1);
  });

  it('needs the bearer token (401) and a valid id (400); nothing is removed', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').ingest({ source: 'chat', sourceId: 'm-1' });
    expect((await remove(t, {})).status).toBe(401);
    expect((await remove(t, { authorization: 'Bearer nope' })).status).toBe(401);
    expect(await errorOf(await remove(t, auth, 'Not%20An%20Inbox'))).toMatchObject({ status: 400, code: 'invalid_inbox_id' });
    expect(await t.store.inboxes()).toEqual(['alice']);
  });
});

describe('GET /inboxes/:inbox/usage', () => {
  const apps = useHttpApps();
  const usage = (t: TestApp, query: string) => t.app.hono.request(`/inboxes/alice/usage?${query}`, { headers: auth });

  it("answers the inbox's model usage by day or month; a bad query is 400 invalid_argument naming the field", async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'm-1' });
    const gen = (await inbox.acquire('w'))!;
    const claimed = await inbox.claimBatch('w', gen);
    await inbox.finish('w', gen, claimed.map((e) => e.id), { usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.01 } });
    const day = new Date(T0).toISOString().slice(0, 10);
    const ok = await usage(t, `from=${T0 - 86_400_000}&to=${T0 + 1}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ usage: [{ period: day, runs: 1, inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01, unpricedRuns: 0 }] });
    expect((await (await usage(t, `from=${T0}&to=${T0 + 1}&by=month`)).json()) as unknown).toMatchObject({ usage: [{ period: day.slice(0, 7), runs: 1 }] });
    for (const [query, says] of [
      [`to=${T0}`, 'from'],
      [`from=yesterday&to=${T0}`, 'from'],
      [`from=${T0}&to=${T0}&by=week`, 'by'],
      [`from=${T0 + 1}&to=${T0}`, 'from'],
    ] as const) {
      const error = await errorOf(await usage(t, query));
      expect(error).toMatchObject({ status: 400, code: 'invalid_argument' });
      expect(error.message).toContain(says);
    }
    expect((await t.app.hono.request(`/inboxes/alice/usage?from=${T0}&to=${T0}`)).status).toBe(401);
  });
});
