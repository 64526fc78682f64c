/**
 * /healthz while writes fail: 503 `degraded` once a write (a POST) meets a
 * store that cannot take it, back to 200 when a write works, or when no
 * write has failed for DEGRADED_FOR_MS (only a write can tell, and a
 * process out of rotation gets none). The failing write here is real: an
 * inbox file that is not a database. A full disk against `vigil serve`:
 * test/faults/sqlite-disk-full.test.ts.
 */
import { writeFileSync } from 'node:fs';
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

describe('GET /healthz while writes fail', () => {
  const apps = useHttpApps();

  it('is 503 degraded after a write the store could not take, and 200 again once a write works', async () => {
    const t = await apps.make();
    writeFileSync(join(t.dir, 'broken.db'), 'this is not a SQLite database, just text long enough to be read as a header. '.repeat(20));
    expect((await t.request('/healthz')).status).toBe(200);
    expect(await deliver(t, 'broken', 'd-1')).toBe(503);
    const health = await t.request('/healthz');
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toBe('1');
    expect(await health.json()).toEqual({
      ok: false,
      status: 'degraded',
      since: new Date(t.clock.now()).toISOString(),
      error: { code: 'store_unavailable', message: expect.stringMatching(/^writes are failing: a file in the data directory is not a SQLite database \(SQLITE_NOTADB on .*broken\.db\)/) },
    });
    expect(await deliver(t, 'alice', 'd-2')).toBe(202);
    expect(await (await t.request('/healthz')).json()).toEqual({ ok: true });
  });

  it('a failure stops counting DEGRADED_FOR_MS after the last one, so a process out of rotation gets writes again', async () => {
    const t = await apps.make();
    writeFileSync(join(t.dir, 'broken.db'), 'not a database '.repeat(100));
    expect(await deliver(t, 'broken', 'd-1')).toBe(503);
    t.clock.advance(DEGRADED_FOR_MS - 1);
    expect((await t.request('/healthz')).status).toBe(503);
    t.clock.advance(1);
    expect((await t.request('/healthz')).status).toBe(200);
  });
});
