/**
 * Signed one-tap approval links: GET shows what is asked and never answers,
 * POST answers and shows what stands; a bad signature is 403, a lapsed link
 * only ever says "expired", and untrusted action text is escaped.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { approvalPath, describeAction, verifyApprovalLink, type ApprovalLink } from '../../src/http/approval-links.js';
import { eventCount, SECRETS, T0, useHttpApps, type TestApp } from './http-harness.js';

const EXPIRES_IN = 60_000;

async function requestApproval(t: TestApp, action: unknown = { summary: 'Refund order #42 ($5.00)?' }, id = 'refund-1') {
  await t.store.inbox('alice').requestApproval({ id, expiresInMs: EXPIRES_IN, action });
  const link: ApprovalLink = { inboxId: 'alice', approvalId: id, expiresAt: T0 + EXPIRES_IN, summary: describeAction(action) };
  return approvalPath(SECRETS.link, link);
}

const tapAnswer = (t: TestApp, path: string, answer: string) =>
  t.app.hono.request(path, { method: 'POST', body: new URLSearchParams({ answer }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

describe('GET /a/:inbox/:id (confirm page)', () => {
  const apps = useHttpApps();

  it('shows what is asked with Yes/No buttons that POST back to the same signed URL, and answers nothing', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    const res = await t.app.hono.request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('Refund order #42 ($5.00)?');
    expect(page).toContain('<form method="post" action="' + path.replaceAll('&', '&amp;') + '">');
    expect(page).toMatch(/<button type="submit" name="answer" value="yes">Yes<\/button>/);
    expect(page).toMatch(/<button type="submit" name="answer" value="no">No<\/button>/);
    // A link preview fetching the page must not answer it.
    expect(await t.store.inbox('alice').getEvent('approval', 'refund-1')).toBeNull();
  });

  it('is not framable, loads nothing and leaks no Referer', async () => {
    const t = await apps.make();
    const res = await t.app.hono.request(await requestApproval(t));
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('escapes the untrusted action text', async () => {
    const t = await apps.make();
    const path = await requestApproval(t, { summary: `<script>alert("x")</script><img src=x onerror='y'>&` });
    const page = await (await t.app.hono.request(path)).text();
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;');
  });

  it('a tool action shows the tool and the exact input that will run, from the store, escaped and bounded', async () => {
    const t = await apps.make();
    const input = { order: '42', note: '<b>"rush"</b> & ship', cents: 500 };
    const path = await requestApproval(t, { type: 'tool', tool: 'refund', input, summary: 'Refund order 42' });
    const page = await (await t.app.hono.request(path)).text();
    expect(page).toContain('Refund order 42');
    expect(page).toContain('Yes runs the tool <code>refund</code> with exactly this input:');
    const escaped = JSON.stringify(input, null, 2).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
    expect(page).toContain(`<pre class="exact">${escaped}</pre>`);
    expect(page).not.toContain('<b>');

    const long = { text: 'x'.repeat(10_000) };
    const longPage = await (await t.app.hono.request(await requestApproval(t, { type: 'tool', tool: 'post', input: long, summary: 'Post it' }, 'post-1'))).text();
    expect(longPage).toContain(`… (cut: ${JSON.stringify(long, null, 2).length} characters in all)`);
    expect(longPage).not.toContain('x'.repeat(4_000));
  });

  it('escapes the approval id too (it comes from the agent)', async () => {
    const t = await apps.make();
    const path = await requestApproval(t, 'plain', '<b>id</b>');
    const page = await (await t.app.hono.request(path)).text();
    expect(page).toContain('&lt;b&gt;id&lt;/b&gt;');
    expect(page).not.toContain('<b>id</b>');
  });

  it.each([
    ['a forged signature', (p: string) => p.replace(/sig=[^&]+/, 'sig=AAAA')],
    ['no signature', (p: string) => p.replace(/&sig=[^&]+/, '')],
    ['an expiry stretched by a day', (p: string) => p.replace(/exp=(\d+)/, (_m, exp: string) => `exp=${Number(exp) + 86_400_000}`)],
    ['another approval id', (p: string) => p.replace('/refund-1?', '/refund-2?')],
    ['another inbox', (p: string) => p.replace('/a/alice/', '/a/bob/')],
    ['a changed summary', (p: string) => p.replace(/q=[^&]+/, 'q=Refund+%24500')],
    ['the summary removed', (p: string) => p.replace(/&q=[^&]+/, '')],
    ['a non-numeric expiry', (p: string) => p.replace(/exp=\d+/, 'exp=1e20')],
  ])('%s is 403', async (_what, tamper) => {
    const t = await apps.make();
    const path = tamper(await requestApproval(t));
    const res = await t.app.hono.request(path);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('not valid');
    const post = await tapAnswer(t, path, 'yes');
    expect(post.status).toBe(403);
    expect(await t.store.inbox('alice').getEvent('approval', 'refund-1')).toBeNull();
  });

  it('past its exp the link says expired and offers no buttons', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    t.clock.set(T0 + EXPIRES_IN);
    const page = await (await t.app.hono.request(path)).text();
    expect(page).toContain('expired');
    expect(page).not.toContain('<form');
  });

  it('already answered: says so and shows the answer that stands', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    await t.store.inbox('alice').answerApproval('refund-1', 'no');
    const page = await (await t.app.hono.request(path)).text();
    expect(page).toContain('Already answered: no');
    expect(page).not.toContain('<form');
  });

  it('a link without a summary names the approval, and after the answer shows the stored action (escaped)', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').requestApproval({ id: 'r-2', expiresInMs: EXPIRES_IN, action: { type: 'refund', note: '<i>' } });
    const path = approvalPath(SECRETS.link, { inboxId: 'alice', approvalId: 'r-2', expiresAt: T0 + EXPIRES_IN });
    expect(await (await t.app.hono.request(path)).text()).toContain('approval r-2');
    await t.store.inbox('alice').answerApproval('r-2', 'yes');
    const page = await (await t.app.hono.request(path)).text();
    expect(page).toContain('{&quot;type&quot;:&quot;refund&quot;,&quot;note&quot;:&quot;&lt;i&gt;&quot;}');
  });

  it('links are disabled (403) when the server has no link secret', async () => {
    const t = await apps.make({}, { linkSecret: '' });
    const path = approvalPath('', { inboxId: 'alice', approvalId: 'refund-1', expiresAt: T0 + EXPIRES_IN });
    await t.store.inbox('alice').requestApproval({ id: 'refund-1', expiresInMs: EXPIRES_IN, action: 'x' });
    expect((await t.app.hono.request(path)).status).toBe(403);
    expect((await tapAnswer(t, path, 'yes')).status).toBe(403);
    expect(await t.store.inbox('alice').getEvent('approval', 'refund-1')).toBeNull();
  });
});

describe('POST /a/:inbox/:id (answer)', () => {
  const apps = useHttpApps();

  it('yes answers through the store and shows it; the event is stored once', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    const heard = t.events.next('approval:answered');
    const res = await tapAnswer(t, path, 'yes');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Answered: yes');
    expect(await heard).toEqual({ inboxId: 'alice', approvalId: 'refund-1', outcome: 'yes' });
    expect((await t.store.inbox('alice').getEvent('approval', 'refund-1'))?.payload).toMatchObject({ answer: 'yes' });
  });

  it('a second tap (no) cannot change it: the page shows yes, still one event', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    await tapAnswer(t, path, 'yes');
    const page = await (await tapAnswer(t, path, 'no')).text();
    expect(page).toContain('Already answered: yes');
    expect(await eventCount(t.store, 'alice')).toBe(1);
  });

  it('a tap after exp answers nothing and shows expired', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    t.clock.set(T0 + EXPIRES_IN + 1);
    const res = await tapAnswer(t, path, 'yes');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('expired');
    const event = await t.store.inbox('alice').getEvent('approval', 'refund-1');
    expect(event === null || (event.payload as { answer: string }).answer === 'expired').toBe(true);
  });

  it('a link whose exp is later than the approval deadline cannot win: the store decides (expired)', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').requestApproval({ id: 'refund-1', expiresInMs: 1_000, action: 'Refund?' });
    // Signed by us, but for a longer deadline than the store holds.
    const path = approvalPath(SECRETS.link, { inboxId: 'alice', approvalId: 'refund-1', expiresAt: T0 + EXPIRES_IN });
    t.clock.set(T0 + 5_000);
    expect(await (await tapAnswer(t, path, 'yes')).text()).toContain('expired');
    expect((await t.store.inbox('alice').getEvent('approval', 'refund-1'))?.payload).toMatchObject({ answer: 'expired' });
  });

  it('an answer other than yes/no is 400 and answers nothing', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    expect((await tapAnswer(t, path, 'maybe')).status).toBe(400);
    expect(await t.store.inbox('alice').getEvent('approval', 'refund-1')).toBeNull();
  });

  it('is signed with a key derived for links alone, never with the secret itself: a link signed with the secret (the old scheme) is refused', async () => {
    const t = await apps.make();
    const path = await requestApproval(t);
    const url = new URL(path, 'http://x');
    const text = `alice\u0000refund-1\u0000${T0 + EXPIRES_IN}\u0000${url.searchParams.get('q')}`;
    // What an offline guesser would test a guess of the secret against: it is not the link's signature.
    const keyedWithSecret = createHmac('sha256', SECRETS.link).update(text).digest('base64url');
    expect(url.searchParams.get('sig')).not.toBe(keyedWithSecret);
    url.searchParams.set('sig', keyedWithSecret);
    const old = await tapAnswer(t, url.pathname + url.search, 'yes');
    expect(old.status).toBe(403);
    expect(await t.store.inbox('alice').getEvent('approval', 'refund-1')).toBeNull();
    expect((await tapAnswer(t, path, 'yes')).status).toBe(200);
  });

  it('a validly signed link to an approval never requested is 404', async () => {
    const t = await apps.make();
    const path = approvalPath(SECRETS.link, { inboxId: 'alice', approvalId: 'ghost', expiresAt: T0 + EXPIRES_IN });
    const res = await tapAnswer(t, path, 'yes');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('ghost');
  });
});

describe('approval link format', () => {
  it('a summary is cut to 200 characters without splitting a character, and still verifies', async () => {
    const long = '😀'.repeat(300);
    const summary = describeAction(long);
    expect(Array.from(summary)).toHaveLength(200);
    expect(summary.endsWith('…')).toBe(true);
    // The summary that comes back from the URL is the one that was signed, lone surrogates and all.
    const link = { inboxId: 'alice', approvalId: 'a', expiresAt: T0, summary: 'Refund \uD800 now' };
    const url = new URL(approvalPath(SECRETS.link, link), 'http://x');
    const back = { ...link, summary: url.searchParams.get('q') as string };
    expect(verifyApprovalLink(SECRETS.link, back, url.searchParams.get('sig') as string)).toBe(true);
    expect(describeAction({ title: 'T', description: 'D' })).toBe('D');
    expect(describeAction(['a'])).toBe('["a"]');
  });

});
