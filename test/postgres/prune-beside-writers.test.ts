/**
 * A prune runs beside an inbox's writers, not under their lock
 * (src/store/postgres/prune.ts): an ingest never waits for a prune batch,
 * and R1 holds when a prune moves a key while an ingest of that key waits
 * on it (functions/ingest.sql, vigil_insert_events). Each case holds a
 * prune open half way, with another session holding a row lock on the
 * sent message the prune deletes after the events, and acts meanwhile.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, openStore, type Inbox, type Store } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('prune');
const DAY = 86_400_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A store with one-day retention whose inbox `alice` has done events `old-1`, `old-2` and one sent message, all a day old. */
async function inboxPastRetention(): Promise<{ store: Store; inbox: Inbox; schema: string }> {
  const schema = db.freshSchema();
  const clock = createFakeClock(Date.UTC(2026, 0, 1));
  const store = await openStore(db.url, { schema, clock: clock.now, outboxGapMs: 0, retention: { doneEventsMs: DAY, sentMessagesMs: DAY } });
  cleanups.push(() => store.close());
  const inbox = store.inbox('alice');
  await inbox.ingestMany([{ source: 's', sourceId: 'old-1' }, { source: 's', sourceId: 'old-2' }]);
  const gen = (await inbox.acquire('W'))!;
  const claimed = await inbox.claimBatch('W', gen);
  expect(await inbox.finish('W', gen, claimed.map((e) => e.id), { messages: ['hi'] })).toBe(true);
  await inbox.release('W', gen);
  expect(await inbox.dispatch(() => undefined)).toBe(1);
  clock.advance(DAY);
  return { store, inbox, schema };
}

/** Another session holding the inbox's sent message FOR UPDATE: a prune that reaches it waits, its events already moved. */
async function holdSentMessage(schema: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  cleanups.push(() => client.end());
  await client.query(`SET search_path TO "${schema}"`);
  await client.query('BEGIN');
  const { rowCount } = await client.query("SELECT 1 FROM outbox WHERE inbox_id = 'alice' FOR UPDATE");
  expect(rowCount).toBe(1);
  return { release: async () => void (await client.query('COMMIT')) };
}

/** Polls (bounded) until a session waits for a lock held by another: the prune has reached the held message. */
async function untilPruneWaits(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const [row] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%DELETE FROM outbox%'",
    );
    if (row!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the prune never reached the held message within 10 s');
}

/** `promise`'s value, or 'still waiting' if it has none within `ms`. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a prune beside the writers of its inbox (PostgreSQL)', () => {
  it('an ingest of a new key, a claim and a finish go through while a prune of the inbox is open', async () => {
    const { store, inbox, schema } = await inboxPastRetention();
    const held = await holdSentMessage(schema);
    const pruning = store.prune();
    await untilPruneWaits();

    expect(await within(5_000, inbox.ingest({ source: 's', sourceId: 'new' }))).toBe(true);
    const gen = await within(5_000, inbox.acquire('W'));
    if (typeof gen !== 'number') throw new Error(`acquire: ${gen}`);
    const claimed = await inbox.claimBatch('W', gen);
    expect(claimed.map((e) => e.sourceId)).toEqual(['new']);
    expect(await within(5_000, inbox.finish('W', gen, [claimed[0]!.id]))).toBe(true);

    await held.release();
    expect(await pruning).toMatchObject({ events: 2, messages: 1 });
    expect(await inbox.getEvent('s', 'new')).toMatchObject({ status: 'done' });
  });

  it('an ingest of a key the prune is moving waits for it, then finds the tombstone: stored once, never twice (R1)', async () => {
    const { store, inbox, schema } = await inboxPastRetention();
    const held = await holdSentMessage(schema);
    const pruning = store.prune();
    await untilPruneWaits();

    // Its key's event is deleted but not yet committed: the insert waits on the key.
    const again = inbox.ingestMany([{ source: 's', sourceId: 'old-1' }, { source: 's', sourceId: 'fresh' }]);
    expect(await within(300, again)).toBe('still waiting');
    await held.release();
    expect(await pruning).toMatchObject({ events: 2, messages: 1 });
    expect(await again).toEqual([false, true]);
    expect(await inbox.getEvent('s', 'old-1')).toBeNull();
    expect((await inbox.events()).map((e) => e.sourceId)).toEqual(['fresh']);
    expect(await inbox.ingest({ source: 's', sourceId: 'old-2' })).toBe(false);
  });

  it('a delete of the inbox waits for an open prune, and leaves none of its tombstones behind', async () => {
    const { store, inbox, schema } = await inboxPastRetention();
    const held = await holdSentMessage(schema);
    const pruning = store.prune();
    await untilPruneWaits();

    const deleting = store.deleteInbox('alice');
    expect(await within(300, deleting)).toBe('still waiting');
    await held.release();
    await pruning;
    await deleting;
    expect(await db.query(`SELECT 1 FROM "${schema}".tombstones WHERE inbox_id = 'alice'`)).toEqual([]);
    expect(await inbox.ingest({ source: 's', sourceId: 'old-1' })).toBe(true);
  });

  it('a dead event redriven while a prune waits on it stays, pending: each delete checks the row as it is when deleted', async () => {
    const schema = db.freshSchema();
    const clock = createFakeClock(Date.UTC(2026, 0, 1));
    const store = await openStore(db.url, { schema, clock: clock.now, maxAttempts: 1, retention: { deadEventsMs: DAY } });
    cleanups.push(() => store.close());
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 's', sourceId: 'dies' });
    const gen = (await inbox.acquire('W'))!;
    const [dies] = await inbox.claimBatch('W', gen);
    expect(await inbox.finish('W', gen, [dies!.id], { error: 'no good', dead: true })).toBe(true);
    await inbox.release('W', gen);
    clock.advance(DAY);

    // The redrive's own UPDATE (read.ts), in a session that has not committed yet.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    cleanups.push(() => client.end());
    await client.query(`SET search_path TO "${schema}"`);
    await client.query('BEGIN');
    await client.query(
      "UPDATE events SET status = 'pending', attempts = 0, error = NULL, claim_gen = NULL, last_claim_at = NULL WHERE inbox_id = 'alice' AND status = 'dead'",
    );
    const pruning = store.prune();
    for (let i = 0; i < 500; i++) {
      const [row] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%DELETE FROM events%'",
      );
      if (row!.n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.query('COMMIT');
    expect(await pruning).toMatchObject({ events: 0 });
    expect(await inbox.getEvent('s', 'dies')).toMatchObject({ status: 'pending' });
  });
});
