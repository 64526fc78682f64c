/** The dashboard over HTTP on PostgreSQL: the same suites as on SQLite (dashboard-suite.ts, dashboard-settings-suite.ts), each test on a fresh schema. */
import { createFakeClock, throwawayStore } from '../../src/testing/index.js';
import { T0, useHttpApps } from '../http/http-harness.js';
import { useTestDatabase } from '../postgres/test-database.js';
import { dashboardSettingsSuite } from './dashboard-settings-suite.js';
import { dashboardSuite } from './dashboard-suite.js';

const db = useTestDatabase('dashboard');

const apps = useHttpApps(async () => {
  const kit = await throwawayStore({ url: db.url, clock: createFakeClock(T0) });
  return { store: kit.store, clock: kit.clock, close: () => kit.close() };
});
dashboardSuite(apps);
dashboardSettingsSuite(apps);
