/**
 * The work row (functions/work.sql) after a step that took the lease and
 * claimed: vigil_refresh_work_claimed reads only the timers and approvals
 * again, and an inbox that has no work row yet gets the whole refresh, so
 * readyInboxes() still finds what the run leaves pending.
 */
import { afterEach, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('work_row');
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const T0 = 1_000_000;
const TTL = 60_000;

it('a claiming acquire on an inbox without a work row writes the whole row: the event it left pending is listed when the lease lapses', async () => {
  const schema = db.freshSchema('work');
  let now = T0;
  const store = await openStore(db.url, { schema, clock: () => now, leaseTtlMs: TTL, batchLimit: 1 });
  opened.push(store);
  const inbox = store.inbox('alice');
  await inbox.ingest({ source: 's', sourceId: 'a' });
  await inbox.ingest({ source: 's', sourceId: 'b' });
  await db.query(`DELETE FROM ${schema}.work WHERE inbox_id = 'alice'`); // as if no write had made one

  const run = await inbox.acquireAndClaim('A');
  expect(run?.events.map((e) => e.sourceId)).toEqual(['a']);
  expect(await db.query(`SELECT wake_at::float8 AS wake_at, send_at FROM ${schema}.work WHERE inbox_id = 'alice'`)).toEqual([
    { wake_at: T0 + TTL + 1, send_at: null },
  ]);
  now = T0 + TTL + 1;
  expect(await store.readyInboxes()).toEqual(['alice']);
});
