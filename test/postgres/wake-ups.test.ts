/**
 * Many machines, one database: wake-up hints over LISTEN/NOTIFY between
 * store handles, and readyInboxes() handing concurrent pollers different
 * inboxes (FOR UPDATE SKIP LOCKED).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('wakeups');
const opened: Store[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((fn) => fn()));
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** Two handles on one schema: two machines. */
async function twoMachines(): Promise<{ a: Store; b: Store; schema: string }> {
  const schema = db.freshSchema();
  const a = await openStore(db.url, { schema });
  const b = await openStore(db.url, { schema });
  opened.push(a, b);
  return { a, b, schema };
}

/** Collects hints; `next()` resolves with the next one (or fails after 10 s). */
function hints(): { listener: (inboxId: string) => void; next(): Promise<string>; seen: string[] } {
  const seen: string[] = [];
  let waiting: ((id: string) => void) | undefined;
  return {
    seen,
    listener(inboxId) {
      seen.push(inboxId);
      waiting?.(inboxId);
      waiting = undefined;
    },
    next() {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no wake-up hint within 10 s')), 10_000);
        waiting = (id) => {
          clearTimeout(timer);
          resolve(id);
        };
      });
    },
  };
}

async function listenerSessions(): Promise<number[]> {
  const rows = await db.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'vigil-listener'",
  );
  return rows.map((row) => row.pid);
}

/** Polls (bounded) until `check` holds. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('LISTEN/NOTIFY wake-up hints', () => {
  it('an event, a timer or an approval landing through one machine wakes a subscriber on another', async () => {
    const { a, b } = await twoMachines();
    const heard = hints();
    await a.subscribe(heard.listener);
    let next = heard.next();
    await b.inbox('alice').ingest({ source: 's', sourceId: '1' });
    expect(await next).toBe('alice');
    next = heard.next();
    await b.inbox('bob').addTimer({ id: 't', due: 0 });
    expect(await next).toBe('bob');
    next = heard.next();
    await b.inbox('carol').requestApproval({ id: 'refund', expiresInMs: 60_000, action: 'refund' });
    expect(await next).toBe('carol');
  });

  it("a run that queues messages through one machine wakes an outbox subscriber on another ('outbox'); one that queues none does not", async () => {
    const { a, b } = await twoMachines();
    const heard: Array<[string, string]> = [];
    await a.subscribe((inboxId, kind) => heard.push([inboxId, kind]));
    const inbox = b.inbox('alice');
    await inbox.ingest({ source: 's', sourceId: '1' });
    await inbox.ingest({ source: 's', sourceId: '2' });
    const gen = (await inbox.acquire('W'))!;
    const [first, second] = await inbox.claimBatch('W', gen);
    await inbox.finish('W', gen, [first!.id], {});
    await inbox.finish('W', gen, [second!.id], { messages: ['reply'] });
    await eventually(async () => heard.length === 3, 'three hints arrived');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual([
      ['alice', 'work'],
      ['alice', 'work'],
      ['alice', 'outbox'],
    ]);
  });

  it('a duplicate ingest stores nothing and wakes nobody', async () => {
    const { a, b } = await twoMachines();
    const heard = hints();
    await a.subscribe(heard.listener);
    const first = heard.next();
    await b.inbox('alice').ingest({ source: 's', sourceId: '1' });
    await first;
    expect(await b.inbox('alice').ingest({ source: 's', sourceId: '1' })).toBe(false);
    // A later hint arrives after anything the duplicate could have sent (one connection, in order).
    const marker = heard.next();
    await b.inbox('marker').ingest({ source: 's', sourceId: '1' });
    expect(await marker).toBe('marker');
    expect(heard.seen).toEqual(['alice', 'marker']);
  });

  it('the listener reconnects after its connection is killed, and hears writes again', async () => {
    const { a, b } = await twoMachines();
    const heard = hints();
    await a.subscribe(heard.listener);
    const [pid] = await listenerSessions();
    await db.query('SELECT pg_terminate_backend($1)', [pid]);
    await eventually(async () => {
      const pids = await listenerSessions();
      return pids.length === 1 && pids[0] !== pid;
    }, 'a new listener session is connected');
    // LISTEN follows the connect on the same session; a hint may still race it, so write until one is heard.
    let n = 0;
    await eventually(async () => {
      await b.inbox('alice').ingest({ source: 's', sourceId: String(n++) });
      return heard.seen.includes('alice');
    }, 'a hint arrives on the new connection');
  });

  it('the listener session ends with the last unsubscribe, and with close()', async () => {
    const { a, b } = await twoMachines();
    const stopA = await a.subscribe(() => undefined);
    const stopA2 = await a.subscribe(() => undefined);
    await b.subscribe(() => undefined);
    expect(await listenerSessions()).toHaveLength(2);
    await stopA();
    expect(await listenerSessions()).toHaveLength(2);
    await stopA2();
    await eventually(async () => (await listenerSessions()).length === 1, "a's listener session is gone");
    await b.close();
    await eventually(async () => (await listenerSessions()).length === 0, "b's listener session is gone");
    await expect(b.subscribe(() => undefined)).rejects.toMatchObject({ code: 'store_closed' });
  });
});

describe('readyInboxes across pollers', () => {
  it('skips an inbox another poller is picking at this moment, and lists it again after', async () => {
    const { a, schema } = await twoMachines();
    for (const id of ['a', 'b', 'c']) await a.inbox(id).ingest({ source: 's', sourceId: '1' });
    expect(await a.readyInboxes()).toEqual(['a', 'b', 'c']);

    // Another machine's poll, caught between its pick and its commit.
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    cleanups.push(() => other.end());
    await other.query('BEGIN');
    const picked = await other.query<{ inbox_id: string }>(
      `SELECT inbox_id FROM ${schema}.work WHERE wake_at IS NOT NULL ORDER BY wake_at, inbox_id LIMIT 2 FOR NO KEY UPDATE SKIP LOCKED`,
    );
    expect(picked.rows.map((row) => row.inbox_id)).toEqual(['a', 'b']);
    expect(await a.readyInboxes()).toEqual(['c']);
    expect(await a.readyInboxes({ limit: 1 })).toEqual(['c']);
    await other.query('COMMIT');
    expect(await a.readyInboxes()).toEqual(['a', 'b', 'c']);
  });
});
