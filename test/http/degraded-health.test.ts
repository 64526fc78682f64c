/**
 * /healthz names nobody (issue 49, finding 8): anyone may ask it, so it
 * says `ok`, or `degraded` with a reason class, never an inbox id or a
 * path; the log gets the details. One inbox's failing writes (here a real
 * inbox file that is not a database) mark that inbox, never the instance:
 * /healthz stays 200 and the other inboxes work. The instance is degraded
 * when the store as a whole takes no writes: the probe write fails (a
 * read-only data directory against `vigil serve`: test/service/health.test.ts;
 * a full disk: test/faults/sqlite-disk-full.test.ts), or most recent writes
 * fail across several inboxes.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { DEGRADED_FOR_MS } from '../../src/http/write-health.js';
import { SECRETS, useHttpApps, type TestApp } from './http-harness.js';

async function deliver(t: TestApp, inbox: string, id: string): Promise<number> {
  const body = JSON.stringify({ id });
  const headers = { 'x-github-delivery': id, 'x-hub-signature-256': await githubSign(SECRETS.github, body) };
  return (await t.request(`/hooks/${inbox}/github`, { method: 'POST', body, headers })).status;
}

const NOT_A_DATABASE = 'this is not a SQLite database, just text long enough to be read as a header. '.repeat(20);

describe('GET /healthz when writes fail', () => {
  const apps = useHttpApps();

  it("one inbox's corrupt file marks that inbox: /healthz stays 200 naming nobody, the others work, the log has the details", async () => {
    const t = await apps.make();
    writeFileSync(join(t.dir, 'broken.db'), NOT_A_DATABASE);
    for (let i = 0; i < 5; i++) expect(await deliver(t, 'broken', `d-${i}`)).toBe(503);
    const health = await t.request('/healthz');
    const text = await health.text();
    expect([health.status, JSON.parse(text)]).toEqual([200, { ok: true, status: 'ok' }]);
    expect(text).not.toContain('broken');
    expect(await deliver(t, 'alice', 'a-1')).toBe(202);
    // Logged once, with the inbox and the reason; the instance never said degraded.
    const marked = t.logs().filter((l) => l.inboxId === 'broken' && typeof l.msg === 'string' && l.msg.startsWith('writes to this inbox fail'));
    expect(marked).toEqual([expect.objectContaining({ level: 50, error: expect.stringMatching(/not a SQLite database \(SQLITE_NOTADB on .*broken\.db\)/) })]);
    expect(t.logs().filter((l) => l.msg === 'store:health' || (typeof l.msg === 'string' && l.msg.includes('/healthz says degraded')))).toEqual([]);
    // The signed-in operator's overview names it, with the reason.
    const login = await t.app.hono.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ token: SECRETS.token, next: '/' }).toString(),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const overview = await (await t.app.hono.request('/', { headers: { cookie } })).text();
    expect(overview).toMatch(/<p class="notice error">Writes to one inbox fail; the store takes the others&#39;: broken \(since [^:]+:\d\d:\d\d\.\d+Z: a file in the data directory is not a SQLite database \(SQLITE_NOTADB on [^)]*broken\.db\)/);
    // Once its writes work again (the file removed), the mark goes.
    rmSync(join(t.dir, 'broken.db'));
    expect(await deliver(t, 'broken', 'd-after')).toBe(202);
    expect(await (await t.app.hono.request('/', { headers: { cookie } })).text()).not.toContain('Writes to one inbox fail');
    expect(t.logs().filter((l) => l.msg === 'writes to this inbox work again')).toEqual([expect.objectContaining({ inboxId: 'broken' })]);
  });

  it('most recent writes failing across several inboxes is the store: degraded, store_unwritable, naming none of them', async () => {
    const t = await apps.make();
    const broken = ['b1', 'b2', 'b3'];
    for (const id of broken) writeFileSync(join(t.dir, `${id}.db`), NOT_A_DATABASE);
    expect(await deliver(t, 'alice', 'a-1')).toBe(202);
    for (const id of broken) expect(await deliver(t, id, `${id}-1`)).toBe(503);
    const health = await t.request('/healthz');
    const text = await health.text();
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(text)).toEqual({
      ok: false,
      status: 'degraded',
      reason: 'store_unwritable',
      since: new Date(t.clock.now()).toISOString(),
      error: { code: 'store_unavailable', message: 'the store takes no writes' },
    });
    for (const word of [...broken, t.dir, '.db']) expect(text).not.toContain(word);
    const said = t.logs().find((l) => typeof l.msg === 'string' && l.msg.includes('/healthz says degraded'));
    expect(said).toMatchObject({ level: 50, reason: 'store_unwritable', error: '3 of the last 4 writes failed, in 3 inboxes' });
    // Writes that work, and time, bring it back: each failure counts for DEGRADED_FOR_MS.
    t.clock.advance(DEGRADED_FOR_MS);
    expect(await (await t.request('/healthz')).json()).toEqual({ ok: true, status: 'ok' });
  });

  it('the store not answering its read is degraded, store_unreachable, naming nothing', async () => {
    const t = await apps.make();
    await t.store.close();
    const health = await t.request('/healthz');
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, status: 'degraded', reason: 'store_unreachable', error: { code: 'store_unavailable', message: 'the store does not answer' } });
  });
});
