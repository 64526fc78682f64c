/**
 * The dashboard over HTTP, written once for any store (dashboard-http.test.ts
 * runs it on SQLite, dashboard.postgres.test.ts on PostgreSQL), with a fake
 * clock: sign-in
 * and its cookie, nothing readable without it, CSRF on every action, clear
 * pages for bad input, markup in payloads shown as text, and each action
 * doing what it says and leaving a record. The browser tests
 * (browser.test.ts) drive the same pages in Chromium.
 */
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/index.js';
import { SECRETS, type TestApp, type useHttpApps } from '../http/http-harness.js';

/** What a browser sends with the dashboard's own forms (app.request's requests come to http://localhost). */
export const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' };

export async function signIn(t: TestApp): Promise<string> {
  const response = await t.app.hono.request('/login', { method: 'POST', headers: FORM, body: new URLSearchParams({ token: SECRETS.token, next: '/' }).toString() });
  expect(response.status).toBe(303);
  const cookie = response.headers.get('set-cookie') ?? '';
  return cookie.split(';')[0] as string;
}

export async function get(t: TestApp, path: string, cookie: string): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await t.app.hono.request(path, { headers: { cookie } });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

export function csrfOf(body: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(body);
  if (match === null) throw new Error('no CSRF token on the page');
  return match[1] as string;
}

export async function post(t: TestApp, path: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return t.app.hono.request(path, { method: 'POST', headers: { ...FORM, cookie }, body: new URLSearchParams(fields).toString() });
}

/** An inbox with one event that a run sent dead at once (a terminal error). */
async function deadEvent(store: Store, inboxId: string, sourceId = 'e-1', payload: unknown = { n: 1 }): Promise<number> {
  const inbox = store.inbox(inboxId);
  await inbox.ingest({ source: 'test', sourceId, payload });
  const gen = (await inbox.acquire('w')) as number;
  const [claimed] = await inbox.claimBatch('w', gen);
  await inbox.finish('w', gen, [claimed!.id], { error: 'payments API down', dead: true });
  await inbox.release('w', gen);
  return claimed!.id;
}

export function dashboardSuite(apps: ReturnType<typeof useHttpApps>): void {
describe('dashboard sign-in', () => {

  it('shows nothing without the cookie: pages redirect to the login form, which keeps where you were going', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').ingest({ source: 'test', sourceId: 'secret-key', payload: { ssn: '123' } });
    for (const path of ['/', '/inbox/alice', '/inbox/alice?status=dead']) {
      const response = await t.app.hono.request(path);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(`/login?next=${encodeURIComponent(path)}`);
      expect(await response.text()).not.toContain('secret-key');
    }
    const actions = await post(t, '/inbox/alice/send-now', '', { csrf: 'x' });
    expect(actions.status).toBe(401);
    expect(await t.store.view('alice').actions()).toEqual([]);
  });

  it('a wrong token is refused with no cookie; the right one sets an HttpOnly, SameSite=Strict cookie', async () => {
    const t = await apps.make();
    const wrong = await t.app.hono.request('/login', { method: 'POST', headers: FORM, body: 'token=nope&next=%2F' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('That token is not right.');

    const right = await t.app.hono.request('/login', { method: 'POST', headers: FORM, body: `token=${SECRETS.token}&next=%2Finbox%2Falice` });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/inbox/alice');
    const cookie = right.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^vigil_session=[^;]+;/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain(SECRETS.token);
  });

  it('never sends you off the server after sign-in', async () => {
    const t = await apps.make();
    for (const next of ['//evil.example/x', 'https://evil.example', '/\\evil.example', 'inbox', '/\t/evil.example/path', '/\n/evil.example', '/\\\t\\evil.example', '/\r\n//evil.example']) {
      const response = await t.app.hono.request('/login', { method: 'POST', headers: FORM, body: new URLSearchParams({ token: SECRETS.token, next }).toString() });
      expect([response.status, response.headers.get('location')], JSON.stringify(next)).toEqual([303, '/']);
    }
    // A newline cannot reach the Location header (it was a 500 after a successful sign-in); the path stays on this server.
    const injected = await t.app.hono.request('/login', { method: 'POST', headers: FORM, body: new URLSearchParams({ token: SECRETS.token, next: '/inbox/alice\r\nSet-Cookie: x=1' }).toString() });
    expect([injected.status, injected.headers.get('location')]).toEqual([303, '/inbox/aliceSet-Cookie:%20x=1']);
    const kept = await t.app.hono.request('/login', { method: 'POST', headers: FORM, body: new URLSearchParams({ token: SECRETS.token, next: '/inbox/alice?status=dead#events' }).toString() });
    expect(kept.headers.get('location')).toBe('/inbox/alice?status=dead#events');
  });

  it("a form from another site is refused before it is read, by the browser's own word (Origin, Sec-Fetch-Site)", async () => {
    const t = await apps.make();
    const body = new URLSearchParams({ token: SECRETS.token, next: '/' }).toString();
    const login = (headers: Record<string, string>) => t.app.hono.request('/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, {}] as Record<string, string>[]) {
      const refused = await login(headers);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(await refused.text()).toContain('This form came from another site');
    }
    expect((await login({ 'sec-fetch-site': 'same-origin' })).status).toBe(303);
    // The configured publicUrl is this server too (behind a TLS proxy the request itself says http://).
    expect((await login({ origin: 'http://127.0.0.1:8787' })).status).toBe(303);
    // An action from another site with a valid session cookie and CSRF token is refused as well.
    const cookie = await signIn(t);
    const csrf = csrfOf((await get(t, '/', cookie)).body);
    const action = await t.app.hono.request('/logout', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', cookie }, body: `csrf=${csrf}` });
    expect(action.status).toBe(403);
  });

  it('an altered or expired cookie is signed out', async () => {
    const t = await apps.make();
    const cookie = await signIn(t);
    expect((await get(t, '/', cookie)).status).toBe(200);
    const altered = cookie.replace(/\.(\d+)\./, (_m, expiry: string) => `.${Number(expiry) + 1000}.`);
    expect((await get(t, '/', altered)).status).toBe(303);
    t.clock.advance(12 * 60 * 60 * 1000 + 1);
    expect((await get(t, '/', cookie)).status).toBe(303);
  });

  it('with no token configured the dashboard is off (403), never open', async () => {
    const t = await apps.make({ token: undefined });
    const page = await t.app.hono.request('/');
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('The dashboard is off');
    expect((await t.app.hono.request('/login')).status).toBe(403);
  });

  it('leaves other paths alone: the API and unknown paths still answer JSON', async () => {
    const t = await apps.make();
    const unknown = await t.app.hono.request('/no-such-page');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'not_found' } });
    const api = await t.app.hono.request('/inboxes/alice/messages', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });

  it('signing out needs the CSRF token, clears the cookie and ends the session: a copy of the cookie no longer works', async () => {
    const t = await apps.make();
    const cookie = await signIn(t);
    expect((await post(t, '/logout', cookie, { csrf: 'forged' })).status).toBe(403);
    const csrf = csrfOf((await get(t, '/', cookie)).body);
    const out = await post(t, '/logout', cookie, { csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^vigil_session=;/);
    expect(await t.store.sessionEnded(/^vigil_session=([0-9a-f]{12})\./.exec(cookie)![1]!)).toBe(true);
    const again = await get(t, '/', cookie);
    expect([again.status, again.headers.get('location')]).toEqual([303, '/login?next=%2F']);
    expect((await post(t, '/inbox/alice/send-now', cookie, { csrf })).status).toBe(401);
    // A new sign-in is a new session.
    expect((await get(t, '/', await signIn(t))).status).toBe(200);
  });
});

describe('dashboard pages', () => {

  it('the overview counts each inbox by status, and dead inboxes stand out and can be filtered', async () => {
    const t = await apps.make();
    await deadEvent(t.store, 'bob');
    await t.store.inbox('alice').ingestMany([
      { source: 'test', sourceId: 'a1' },
      { source: 'test', sourceId: 'a2' },
    ]);
    const cookie = await signIn(t);
    const all = await get(t, '/', cookie);
    expect(all.status).toBe(200);
    expect(all.body).toContain('href="/inbox/alice"');
    expect(all.body).toContain('href="/inbox/bob"');
    expect(all.body).toMatch(/<tr class="dead">\s*<th scope="row"><a href="\/inbox\/bob">bob<\/a>/);
    expect(all.body).toContain('<strong>1</strong> inbox needs attention');

    const attention = await get(t, '/?attention=1', cookie);
    expect(attention.body).toContain('href="/inbox/bob"');
    expect(attention.body).not.toContain('href="/inbox/alice"');
    const search = await get(t, '/?q=ali', cookie);
    expect(search.body).toContain('href="/inbox/alice"');
    expect(search.body).not.toContain('href="/inbox/bob"');
  });

  it('pages through inboxes 50 at a time', async () => {
    const t = await apps.make();
    for (let i = 0; i < 55; i++) await t.store.inbox(`user-${String(i).padStart(3, '0')}`).ingest({ source: 'test', sourceId: 'x' });
    const cookie = await signIn(t);
    const first = await get(t, '/', cookie);
    expect(first.body).toContain('user-049');
    expect(first.body).not.toContain('user-050');
    const next = /href="(\/\?after=[^"]+)" rel="next"/.exec(first.body)?.[1];
    expect(next).toBe('/?after=user-049');
    const second = await get(t, next as string, cookie);
    expect(second.body).toContain('user-054');
    expect(second.body).not.toContain('user-049"');
  });

  it('the inbox page says an inbox is stuck (work due over a minute, no worker), also beside ids that contain its id', async () => {
    const t = await apps.make();
    for (const id of ['0alice', 'alice', 'alice-2']) await t.store.inbox(id).ingest({ source: 'test', sourceId: 'x' });
    await t.store.inbox('0alice').ingest({ source: 'test', sourceId: 'y' });
    t.clock.advance(61_000);
    const cookie = await signIn(t);
    const page = await get(t, '/inbox/alice', cookie);
    expect(page.body).toContain('<span class="badge stuck">stuck</span>');
  });

  it('shows a payload with markup as text: escaped, and the page allows no inline script', async () => {
    const t = await apps.make();
    const evil = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>';
    await t.store.inbox('alice').ingest({ source: '<b>src</b>', sourceId: '"><script>x</script>', payload: { note: evil } });
    const cookie = await signIn(t);
    const page = await get(t, '/inbox/alice', cookie);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('<script>document.title');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).not.toContain('<b>src</b>');
    expect(page.body).toContain('&lt;script&gt;document.title=');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('bad input gets a clear page, never a stack: invalid id 400, unknown inbox 404, bad filter 400', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').ingest({ source: 'test', sourceId: 'x' });
    const cookie = await signIn(t);
    const invalid = await get(t, `/inbox/${encodeURIComponent('../etc/passwd')}`, cookie);
    expect(invalid.status).toBe(400);
    expect(invalid.body).toContain('inbox id');
    expect(invalid.headers.get('content-type')).toContain('text/html');
    const unknown = await get(t, '/inbox/nobody', cookie);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('There is no inbox &quot;nobody&quot;');
    expect((await get(t, '/inbox/alice?status=exploded', cookie)).status).toBe(400);
    expect((await get(t, '/inbox/alice?before=-1', cookie)).status).toBe(400);
    expect((await get(t, `/?after=${encodeURIComponent('a/b')}`, cookie)).status).toBe(400);
    expect((await get(t, `/?q=${'x'.repeat(200)}`, cookie)).status).toBe(400);
    // Nothing was written by any of it: no file for "nobody".
    expect(await t.store.inboxes()).toEqual(['alice']);
  });

  it('the inbox page shows events by filter, the lease, timers, approvals, outbox, session and memory', async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    await inbox.ingestMany([
      { source: 'github', sourceId: 'g-1', payload: { action: 'opened' } },
      { source: 'stripe', sourceId: 's-1', payload: { amount: 42 } },
    ]);
    await inbox.addTimer({ id: 'daily-digest', every: 86_400_000, due: t.clock.now() + 60_000 });
    const gen = (await inbox.acquire('worker-7')) as number;
    const claimed = await inbox.claimBatch('worker-7', gen);
    await inbox.finish('worker-7', gen, claimed.map((e) => e.id), {
      messages: ['Your PR was opened.'],
      session: { turns: 3 },
      memory: { set: { tone: 'brief' } },
      approvals: [{ id: 'refund-1', expiresInMs: 3_600_000, action: { refund: 42 } }],
    });
    const cookie = await signIn(t);
    const page = await get(t, '/inbox/alice', cookie);
    expect(page.body).toContain('worker-7');
    expect(page.body).toContain('daily-digest');
    expect(page.body).toContain('refund-1');
    expect(page.body).toContain('Your PR was opened.');
    expect(page.body).toContain('&quot;turns&quot;: 3');
    expect(page.body).toContain('&quot;tone&quot;: &quot;brief&quot;');
    const onlyStripe = await get(t, '/inbox/alice?source=stripe', cookie);
    expect(onlyStripe.body).toContain('s-1');
    expect(onlyStripe.body).not.toContain('g-1');
  });

  it('the inbox page lists the side-effect calls a crash left unknown, input as text, and none once they are settled', async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    await inbox.ingest({ source: 'chat', sourceId: 'm1' });
    const gen = (await inbox.acquire('worker-7')) as number;
    await inbox.claimBatch('worker-7', gen);
    await inbox.startEffect('worker-7', gen, { key: 'refund-key-42', tool: 'refund', input: { order: '<b>42</b>' } });
    const cookie = await signIn(t);
    // Still running in a live run: not unknown, not listed.
    expect((await get(t, '/inbox/alice', cookie)).body).not.toContain('Unknown side effects');
    await inbox.release('worker-7', gen); // the worker is gone without its finish
    let page = await get(t, '/inbox/alice', cookie);
    expect(page.body).toContain('Unknown side effects');
    expect(page.body).toContain('refund-key-42');
    expect(page.body).toContain('&lt;b&gt;42&lt;/b&gt;');
    expect(page.body).toContain('vigil effects alice --settle KEY');
    await inbox.settleEffect('refund-key-42', 'failed');
    page = await get(t, '/inbox/alice', cookie);
    expect(page.body).not.toContain('Unknown side effects');
  });

  it("the inbox page shows today's and this month's model usage, and says when some of it was unpriced", async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    const run = async (sourceId: string, usage: { inputTokens: number; outputTokens: number; costUsd?: number }) => {
      await inbox.ingest({ source: 'chat', sourceId });
      const gen = (await inbox.acquire('w')) as number;
      const claimed = await inbox.claimBatch('w', gen);
      await inbox.finish('w', gen, claimed.map((e) => e.id), { usage });
      await inbox.release('w', gen);
    };
    await run('m-1', { inputTokens: 1234, outputTokens: 56, costUsd: 0.5 });
    const cookie = await signIn(t);
    let page = await get(t, '/inbox/alice', cookie);
    expect(page.body).toContain('Model usage');
    expect(page.body).toMatch(/Today <span class="muted">\d{4}-\d{2}-\d{2}<\/span><\/th>\s*<td class="num">1<\/td><td class="num">1234<\/td><td class="num">56<\/td>/);
    expect(page.body).toContain('0.5000');
    expect(page.body).not.toContain('Unpriced usage');
    await run('m-2', { inputTokens: 10, outputTokens: 1 });
    page = await get(t, '/inbox/alice', cookie);
    expect(page.body).toContain('Unpriced usage: 1 run this month used a model with no known price');
  });
});

describe('dashboard actions', () => {

  it('redrive needs the CSRF token; with it the dead event is pending again and the action is recorded', async () => {
    const t = await apps.make();
    const id = await deadEvent(t.store, 'alice');
    const cookie = await signIn(t);
    const forged = await post(t, '/inbox/alice/redrive', cookie, { csrf: 'forged', event: String(id) });
    expect(forged.status).toBe(403);
    expect((await t.store.inbox('alice').events())[0]).toMatchObject({ status: 'dead' });

    const csrf = csrfOf((await get(t, '/inbox/alice', cookie)).body);
    const done = await post(t, '/inbox/alice/redrive', cookie, { csrf, event: String(id) });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/inbox/alice?notice=redriven&ref=${id}`);
    expect((await t.store.inbox('alice').events())[0]).toMatchObject({ status: 'pending', attempts: 0 });
    const [record] = await t.store.view('alice').actions();
    expect(record).toMatchObject({ action: 'redrive', target: `event ${id}`, result: 'pending again' });
    expect(record!.actor).toMatch(/^dashboard:[0-9a-f]{12}$/);
    expect(t.logs().some((line) => line.msg === `operator action: redrive event ${id} → pending again`)).toBe(true);
    const after = await get(t, done.headers.get('location') as string, cookie);
    expect(after.body).toContain(`Redriven: event ${id} is pending again`);
  });

  it('a notice says only what the dashboard says after an action: no text from the link, only ids that check out', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').requestApproval({ id: 'refund-1', expiresInMs: 60_000, action: { refund: 10 } });
    const cookie = await signIn(t);
    const lure = 'Your account is locked. Call +1 555 0100 now';
    const notice = async (query: string) => /<div id="notice"[^>]*>([\s\S]*?)<\/div>/.exec((await get(t, `/inbox/alice?${query}`, cookie)).body)?.[1] ?? '';
    for (const [code, ref] of [['redriven', lure], ['released', lure], ['approved', lure], ['sending', lure], ['redriven', '12 <b>x</b>'], ['approved', 'refund-2']]) {
      const shown = await notice(`notice=${code}&ref=${encodeURIComponent(ref!)}`);
      expect(shown, `${code} ${ref}`).not.toContain('Call');
      expect(shown).not.toContain('refund-2');
      expect(shown).not.toContain('&lt;b&gt;');
      expect(shown).toContain('class="notice');
    }
    expect(await notice(`notice=${encodeURIComponent(lure)}`)).toBe('');
    expect(await notice('notice=redriven&ref=12')).toContain('Redriven: event 12 is pending again');
    expect(await notice('notice=approved&ref=refund-1')).toContain('Approved refund-1: the agent goes on with it.');
    expect(await notice('notice=released&ref=3')).toContain('Released the lease (generation 3)');
  });

  it('answers an approval once; a late answer is "expired" and approves nothing', async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    await inbox.requestApproval({ id: 'refund-1', expiresInMs: 60_000, action: { refund: 10 } });
    await inbox.requestApproval({ id: 'refund-2', expiresInMs: 60_000, action: { refund: 20 } });
    const cookie = await signIn(t);
    const csrf = csrfOf((await get(t, '/inbox/alice', cookie)).body);
    const yes = await post(t, '/inbox/alice/answer', cookie, { csrf, approval: 'refund-1', answer: 'yes' });
    expect(yes.headers.get('location')).toContain('notice=approved');
    const again = await post(t, '/inbox/alice/answer', cookie, { csrf, approval: 'refund-1', answer: 'no' });
    expect(again.headers.get('location')).toContain('notice=already-yes');

    t.clock.advance(60_000);
    const late = await post(t, '/inbox/alice/answer', cookie, { csrf, approval: 'refund-2', answer: 'yes' });
    const page = await get(t, late.headers.get('location') as string, cookie);
    expect(page.body).toContain('Expired: approval refund-2 ran out of time');
    expect(await inbox.answerApproval('refund-2', 'yes')).toBe('expired');
    expect((await t.store.view(inbox.id).actions()).map((a) => a.result)).toEqual(['expired (too late)', 'already answered yes', 'yes']);
    expect(await post(t, '/inbox/alice/answer', cookie, { csrf, approval: 'refund-1', answer: 'maybe' }).then((r) => r.status)).toBe(400);
  });

  it('releases a stuck lease so the next worker takes over at once', async () => {
    const t = await apps.make();
    const inbox = t.store.inbox('alice');
    await inbox.ingest({ source: 'test', sourceId: 'x' });
    const gen = (await inbox.acquire('stuck-worker')) as number;
    expect(await inbox.acquire('other')).toBeNull();
    const cookie = await signIn(t);
    const csrf = csrfOf((await get(t, '/inbox/alice', cookie)).body);
    const released = await post(t, '/inbox/alice/release', cookie, { csrf, holder: 'stuck-worker', gen: String(gen) });
    expect(released.headers.get('location')).toContain('notice=released');
    expect(await inbox.acquire('other')).toBe(gen + 1);
    const stale = await post(t, '/inbox/alice/release', cookie, { csrf, holder: 'stuck-worker', gen: String(gen) });
    expect(stale.headers.get('location')).toContain('notice=not-released');
  });

  it('"send held now" makes paced messages due at once and wakes the dispatcher', async () => {
    const t = await apps.make(); // the store's default gap: one paced send an hour
    const inbox = t.store.inbox('alice');
    await inbox.ingest({ source: 'test', sourceId: 'x' });
    const gen = (await inbox.acquire('w')) as number;
    const batch = await inbox.claimBatch('w', gen);
    await inbox.finish('w', gen, batch.map((e) => e.id), { messages: ['first'] });
    const sent: string[] = [];
    expect(await inbox.dispatch((body) => void sent.push(body))).toBe(1);
    await inbox.ingest({ source: 'test', sourceId: 'y' });
    const batch2 = await inbox.claimBatch('w', gen);
    await inbox.finish('w', gen, batch2.map((e) => e.id), { messages: ['second'] });
    expect(await inbox.dispatch((body) => void sent.push(body))).toBe(0); // inside the gap
    const cookie = await signIn(t);
    const csrf = csrfOf((await get(t, '/inbox/alice', cookie)).body);
    const woken = t.events.next('outbox:expedited');
    const done = await post(t, '/inbox/alice/send-now', cookie, { csrf });
    expect(done.headers.get('location')).toContain('notice=sending');
    expect(await woken).toEqual({ inboxId: 'alice', count: 1 });
    expect(await t.store.dispatchableInboxes()).toEqual(['alice']);
    expect(await inbox.dispatch((body) => void sent.push(body))).toBe(1);
    expect(sent).toEqual(['first', 'second']);
  });
});
}
