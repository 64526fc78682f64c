/** The dashboard over HTTP on a real SQLite store (the suites: dashboard-suite.ts, dashboard-settings-suite.ts), and what only SQLite can show. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { SECRETS, useHttpApps } from '../http/http-harness.js';
import { dashboardSettingsSuite } from './dashboard-settings-suite.js';
import { dashboardSuite } from './dashboard-suite.js';

const apps = useHttpApps();
dashboardSuite(apps);
dashboardSettingsSuite(apps);

describe('dashboard on SQLite', () => {
  it('an inbox whose file cannot be read is one red row saying why; the rest of the overview renders', async () => {
    const t = await apps.make();
    await t.store.inbox('alice').ingest({ source: 'test', sourceId: 'a' });
    await t.store.inbox('carol').ingest({ source: 'test', sourceId: 'c' });
    // Written by another process, so this one has never opened it; then the file goes bad.
    const other = await openStore(`sqlite:${t.dir}`);
    await other.inbox('broken').ingest({ source: 'test', sourceId: 'b' });
    await other.close();
    writeFileSync(join(t.dir, 'broken.db'), 'this is not a SQLite database, just text long enough to be read as a header. '.repeat(20));

    const login = await t.app.hono.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ token: SECRETS.token, next: '/' }).toString(),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const page = await t.app.hono.request('/', { headers: { cookie } });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toMatch(/<tr class="unreadable">\s*<th scope="row"><a href="\/inbox\/broken">broken<\/a><\/th>\s*<td><span class="badge unreadable">unreadable<\/span><\/td>\s*<td colspan="8" class="alert">unreadable: a file in the data directory is not a SQLite database \(SQLITE_NOTADB on [^)]*broken\.db\)<\/td>/);
    expect(body).toContain('href="/inbox/alice"');
    expect(body).toContain('href="/inbox/carol"');
  });
});
