/** The dashboard over HTTP on PostgreSQL: the same suites as on SQLite (dashboard-suite.ts, dashboard-settings-suite.ts), each test on a fresh schema. */
import { describe, expect, it } from 'vitest';
import { createFakeClock, throwawayStore } from '../../src/testing/index.js';
import { T0, useHttpApps } from '../http/http-harness.js';
import { useTestDatabase } from '../postgres/test-database.js';
import { dashboardSettingsSuite } from './dashboard-settings-suite.js';
import { dashboardSuite, signIn } from './dashboard-suite.js';

const db = useTestDatabase('dashboard');

/** The schema of the store the last app was made on, for the one test that writes a row by SQL. */
let lastSchema = '';
const apps = useHttpApps(async () => {
  const kit = await throwawayStore({ url: db.url, clock: createFakeClock(T0) });
  lastSchema = kit.schema ?? '';
  return { store: kit.store, clock: kit.clock, close: () => kit.close() };
});
dashboardSuite(apps);
dashboardSettingsSuite(apps);

describe('dashboard on PostgreSQL', () => {
  // Issue 49, findings 1 and 6: a lease generation or a timer's due past 2^53 (an older version's row) made every read of the overview fail, so the page was a 500 for every inbox.
  it.each([
    ['a lease generation past 2^53', `UPDATE %s.inboxes SET gen = 9223372036854775807 WHERE inbox_id = 'bob'`, 'lease.gen'],
    ['a timer due past 2^53', `UPDATE %s.timers SET due = 9007199254740993 WHERE inbox_id = 'bob'`, 'nextTimerAt'],
  ])("%s in one inbox is that inbox's red row; the rest of the overview renders", async (_what, sql, field) => {
    const t = await apps.make();
    for (const id of ['alice', 'bob', 'carol']) await t.store.inbox(id).ingest({ source: 'test', sourceId: id });
    await t.store.inbox('bob').addTimer({ id: 't', due: T0 + 1_000 });
    await db.query(sql.replace('%s', lastSchema));
    const cookie = await signIn(t);
    const page = await t.app.hono.request('/', { headers: { cookie } });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toMatch(new RegExp(`<tr class="unreadable">\\s*<th scope="row"><a href="/inbox/bob">bob</a></th>[\\s\\S]*?unreadable: a stored value is out of range \\(${field} `));
    expect(body).toContain('href="/inbox/alice"');
    expect(body).toContain('href="/inbox/carol"');
    expect((await t.app.hono.request('/inbox/alice', { headers: { cookie } })).status).toBe(200);
  });
});
