/**
 * The work row (functions/work.sql) after the run steps' shortcuts:
 *   - a step that took the lease and claimed: vigil_refresh_work_claimed
 *     reads only the timers and approvals again, and an inbox that has no
 *     work row yet gets the whole refresh, so readyInboxes() still finds
 *     what the run leaves pending;
 *   - a finish that leaves no event pending or running (a run's last):
 *     vigil_refresh_work skips its parts read from the events, and the row
 *     still holds the timers, the approvals and the queued reply; a finish
 *     that leaves a retry or a running event reads them all.
 */
import { afterEach, expect, it } from 'vitest';
import { openStore, type Store, type StoreOptions } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('work_row');
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const T0 = 1_000_000;
const TTL = 60_000;

/** A store on a fresh schema whose clock reads `clock.now`, starting at T0. */
async function storeAt(name: string, options: StoreOptions = {}): Promise<{ schema: string; store: Store; clock: { now: number } }> {
  const schema = db.freshSchema(name);
  const clock = { now: T0 };
  const store = await openStore(db.url, { schema, clock: () => clock.now, leaseTtlMs: TTL, ...options });
  opened.push(store);
  return { schema, store, clock };
}

const row = async (schema: string, inbox = 'alice'): Promise<unknown[]> =>
  db.query(`SELECT wake_at::float8 AS wake_at, send_at::float8 AS send_at FROM ${schema}.work WHERE inbox_id = $1`, [inbox]);

it('a claiming acquire on an inbox without a work row writes the whole row: the event it left pending is listed when the lease lapses', async () => {
  const { schema, store, clock } = await storeAt('work', { batchLimit: 1 });
  const inbox = store.inbox('alice');
  await inbox.ingest({ source: 's', sourceId: 'a' });
  await inbox.ingest({ source: 's', sourceId: 'b' });
  await db.query(`DELETE FROM ${schema}.work WHERE inbox_id = 'alice'`); // as if no write had made one

  const run = await inbox.acquireAndClaim('A');
  expect(run?.events.map((e) => e.sourceId)).toEqual(['a']);
  expect(await row(schema)).toEqual([{ wake_at: T0 + TTL + 1, send_at: null }]);
  clock.now = T0 + TTL + 1;
  expect(await store.readyInboxes()).toEqual(['alice']);
});

it("a run's last finish leaves the row of the inbox's timer or approval and its reply: listed when it falls due, sent at once", async () => {
  const { schema, store, clock } = await storeAt('last');
  const alice = store.inbox('alice');
  const bob = store.inbox('bob');
  await alice.addTimer({ id: 'later', due: T0 + 400_000 });
  await bob.requestApproval({ id: 'refund', expiresInMs: 500_000, action: { refund: 42 } });
  for (const inbox of [alice, bob]) {
    clock.now = T0;
    await inbox.ingest({ source: 's', sourceId: 'a' });
    const run = await inbox.acquireAndClaim('A');
    clock.now = T0 + 10;
    const next = await inbox.finishAndClaim('A', run!.gen, run!.events.map((e) => e.id), { messages: [{ body: 'done' }] });
    expect(next).toMatchObject({ finished: true, events: [] });
  }
  expect(await row(schema, 'alice')).toEqual([{ wake_at: T0 + 400_000, send_at: T0 + 10 }]);
  expect(await row(schema, 'bob')).toEqual([{ wake_at: T0 + 500_000, send_at: T0 + 10 }]);
  expect(await store.readyInboxes()).toEqual([]);
  expect((await store.dispatchableInboxes()).sort()).toEqual(['alice', 'bob']);
  clock.now = T0 + 400_000;
  expect(await store.readyInboxes()).toEqual(['alice']);
  clock.now = T0 + 500_000;
  expect((await store.readyInboxes()).sort()).toEqual(['alice', 'bob']);
});

it('a finish that puts its event back for a retry reads the events: the inbox is listed when the backoff has passed', async () => {
  const { schema, store, clock } = await storeAt('retry', { retryBackoff: { baseMs: 5_000, maxMs: 5_000 } });
  const inbox = store.inbox('alice');
  await inbox.ingest({ source: 's', sourceId: 'a' });

  const run = await inbox.acquireAndClaim('A');
  clock.now = T0 + 10;
  const next = await inbox.finishAndClaim('A', run!.gen, run!.events.map((e) => e.id), { error: 'model timed out' });
  expect(next).toMatchObject({ finished: true, events: [] });
  expect(await row(schema)).toEqual([{ wake_at: T0 + 5_000, send_at: null }]);
  clock.now = T0 + 4_999;
  expect(await store.readyInboxes()).toEqual([]);
  clock.now = T0 + 5_000;
  expect(await store.readyInboxes()).toEqual(['alice']);
});

it('a finish of part of a batch reads the events: its lease stays, and the rest are listed at until + 1', async () => {
  const { schema, clock, store } = await storeAt('part');
  const inbox = store.inbox('alice');
  await inbox.ingest({ source: 's', sourceId: 'a' });
  await inbox.ingest({ source: 's', sourceId: 'b' });

  const run = await inbox.acquireAndClaim('A');
  expect(run?.events.map((e) => e.sourceId)).toEqual(['a', 'b']);
  clock.now = T0 + 10;
  const next = await inbox.finishAndClaim('A', run!.gen, [run!.events[0]!.id]);
  expect(next).toMatchObject({ finished: true, events: [] });
  expect(await row(schema)).toEqual([{ wake_at: T0 + 10 + TTL + 1, send_at: null }]);
  expect(await inbox.acquire('B')).toBeNull(); // the lease was renewed, not ended
});
