/**
 * Run steps of several inboxes in one transaction (src/store/postgres/
 * step-group.ts): steps that wait at the same moment commit together, and
 * nothing else about a step changes. Each step's outcome is its own, a
 * failing step fails alone, a step cut off with its group never commits,
 * every queued message is heard, and the group's commit waits for the WAL
 * flush even when a refused acquire in it would not. A group cut off by
 * the network commits none of its steps: connection-loss.test.ts.
 *
 * Steps asked in one turn of the event loop (Promise.all) wait together.
 * Which transaction wrote a row is its xmin.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('step_group');
const opened: Store[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const INBOXES = ['a', 'b', 'c', 'd', 'e', 'f'];

async function open(schema = db.freshSchema('steps'), url = db.url): Promise<Store> {
  const store = await openStore(url, { schema });
  opened.push(store);
  return store;
}

/** Each inbox with two events, acquired by W in one go: its generation and the claimed ids. */
async function acquiredTogether(store: Store, ids = INBOXES): Promise<Map<string, { gen: number; ids: number[] }>> {
  for (const id of ids) await store.inbox(id).ingestMany([{ source: 's', sourceId: '1' }, { source: 's', sourceId: '2' }]);
  const runs = await Promise.all(ids.map((id) => store.inbox(id).acquireAndClaim('W')));
  return new Map(
    runs.map((run, i) => {
      expect(run?.events).toHaveLength(2);
      return [ids[i]!, { gen: run!.gen, ids: run!.events.map((e) => e.id) }];
    }),
  );
}

/** How many transactions last wrote the inboxes' rows of `table`. */
async function writers(schema: string, table: 'inboxes' | 'outbox', ids = INBOXES): Promise<number> {
  const [row] = await db.query<{ n: number }>(`SELECT count(DISTINCT xmin::text)::int AS n FROM ${schema}.${table} WHERE inbox_id = ANY($1)`, [ids]);
  return row!.n;
}

describe('PostgreSQL run steps in groups', () => {
  it('steps of several inboxes asked at once share transactions; each finish is its own, and each queued message is heard', async () => {
    const schema = db.freshSchema('steps');
    const store = await open(schema);
    const listener = await open(schema);
    const heard: string[] = [];
    await listener.subscribe((inboxId, kind) => {
      if (kind === 'outbox') heard.push(inboxId);
    });

    const runs = await acquiredTogether(store);
    expect(await writers(schema, 'inboxes')).toBeLessThan(INBOXES.length);

    const steps = await Promise.all(
      INBOXES.map((id) => store.inbox(id).finishAndClaim('W', runs.get(id)!.gen, runs.get(id)!.ids, { messages: [`reply to ${id}`] })),
    );
    expect(steps.map((step) => step.finished)).toEqual(INBOXES.map(() => true));
    expect(await writers(schema, 'outbox')).toBeLessThan(INBOXES.length);
    for (const id of INBOXES) {
      const stats = await store.inbox(id).stats();
      expect(stats.events, id).toEqual({ pending: 0, running: 0, done: 2, dead: 0 });
      expect(stats.outbox.held, id).toBe(1);
    }
    for (let i = 0; i < 250 && heard.length < INBOXES.length; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard.sort()).toEqual(INBOXES);
  });

  it('a step that fails (memory_full) fails alone: its neighbours finish, it changes nothing', async () => {
    const store = await open();
    const runs = await acquiredTogether(store);
    // Each value within its own limit, together over the inbox's 1 MiB.
    const tooMuch = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'x'.repeat(60_000)]));
    const steps = await Promise.allSettled(
      INBOXES.map((id) =>
        store.inbox(id).finishAndClaim('W', runs.get(id)!.gen, runs.get(id)!.ids, {
          messages: [`reply to ${id}`],
          ...(id === 'b' ? { memory: { set: tooMuch } } : {}),
        }),
      ),
    );
    for (const [i, id] of INBOXES.entries()) {
      const stats = await store.inbox(id).stats();
      if (id === 'b') {
        expect(steps[i]).toMatchObject({ status: 'rejected', reason: { code: 'memory_full' } });
        expect(stats.events).toEqual({ pending: 0, running: 2, done: 0, dead: 0 });
        expect(stats.outbox.held).toBe(0);
      } else {
        expect(steps[i], id).toMatchObject({ status: 'fulfilled', value: { finished: true } });
        expect(stats.events, id).toEqual({ pending: 0, running: 0, done: 2, dead: 0 });
        expect(stats.outbox.held, id).toBe(1);
      }
    }
  });

  it("a group's commit waits for the WAL flush even when a refused acquire in it, alone, would not", async () => {
    const schema = db.freshSchema('steps');
    // The test server's default is off; this store's sessions start with it on, as PostgreSQL's default is.
    const url = new URL(db.url);
    url.searchParams.set('options', '-c synchronous_commit=on');
    const store = await open(schema, url.toString());
    for (const id of INBOXES) await store.inbox(id).ingest({ source: 's', sourceId: '1' });
    expect(await store.inbox('a').acquireAndClaim('B')).not.toBeNull(); // B holds a: W's acquire of it is refused

    // What synchronous_commit is when each transaction commits: a deferred trigger runs then.
    await db.query(`CREATE TABLE ${schema}.commit_log (tx text, inbox_id text, sync text)`);
    await db.query(`CREATE FUNCTION ${schema}.log_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${schema}.commit_log VALUES (txid_current()::text, NEW.inbox_id, current_setting('synchronous_commit'));
        RETURN NULL;
      END $$`);
    await db.query(`CREATE CONSTRAINT TRIGGER log_commit AFTER UPDATE ON ${schema}.inboxes DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION ${schema}.log_commit()`);

    const runs = await Promise.all(INBOXES.map((id) => store.inbox(id).acquireAndClaim('W')));
    expect(runs[0]).toBeNull();
    expect(runs.slice(1).every((run) => run?.events.length === 1)).toBe(true);

    const log = await db.query<{ tx: string; inbox_id: string; sync: string }>(`SELECT * FROM ${schema}.commit_log`);
    const txOfA = log.find((row) => row.inbox_id === 'a')!.tx;
    const groupOfA = log.filter((row) => row.tx === txOfA);
    expect(groupOfA.length, 'the refused acquire shared its transaction').toBeGreaterThan(1);
    expect(groupOfA.map((row) => row.sync)).toEqual(groupOfA.map(() => 'on'));
  });
});
