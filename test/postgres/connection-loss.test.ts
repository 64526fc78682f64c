/**
 * Connection loss in the middle of finish(): the transaction rolls back and
 * nothing is half-done — the events stay running, no message is queued —
 * and the same finish, retried, goes through exactly once.
 *
 * To stop finish() at a known point, a second session holds a row lock on
 * the inbox's work row. finish() has then marked its events done and queued
 * its messages (uncommitted) and waits for that lock in its last statement
 * before COMMIT; that is when its connection is cut.
 */
import { createServer, connect, type Socket } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, VigilError, type Inbox, type Store } from '../../src/index.js';
import { useTestDatabase } from './test-database.js';

const db = useTestDatabase('connection_loss');
const opened: Store[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((fn) => fn()));
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function open(url = db.url, schema = db.freshSchema()): Promise<{ store: Store; schema: string }> {
  const store = await openStore(url, { schema });
  opened.push(store);
  return { store, schema };
}

/** A store whose every connection goes through a proxy that can cut them all at once. */
async function openThroughProxy(): Promise<{ proxy: { cut(): void }; store: Store; schema: string }> {
  const proxy = await startProxy(new URL(db.url));
  cleanups.push(proxy.close);
  const url = new URL(db.url);
  url.host = `127.0.0.1:${proxy.port}`;
  return { proxy, ...(await open(url.toString())) };
}

/** A session that holds the inbox's work row locked until released. */
async function holdWorkRow(schema: string, inboxId: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('BEGIN');
  const { rowCount } = await client.query(`SELECT 1 FROM ${schema}.work WHERE inbox_id = $1 FOR UPDATE`, [inboxId]);
  expect(rowCount).toBe(1);
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await client.query('ROLLBACK');
    await client.end();
  };
  cleanups.push(release);
  return release;
}

/** Waits (bounded) until a store session is blocked on a lock; returns its pid. */
async function blockedStoreSession(): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const rows = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'vigil' AND wait_event_type = 'Lock'`,
    );
    if (rows[0] !== undefined) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no store session got blocked on the held lock');
}

/** The blocked finish has queued its replies in its open transaction (it holds the outbox's insert lock). */
async function expectWroteOutbox(pid: number, schema: string): Promise<void> {
  const locks = await db.query(
    `SELECT 1 FROM pg_locks WHERE pid = $1 AND relation = to_regclass($2) AND mode = 'RowExclusiveLock'`,
    [pid, `${schema}.outbox`],
  );
  expect(locks).toHaveLength(1);
}

/** An inbox with two events claimed by holder W: what finish() will be asked to record. */
async function claimedRun(inbox: Inbox): Promise<{ gen: number; ids: number[] }> {
  await inbox.ingestMany([
    { source: 's', sourceId: '1' },
    { source: 's', sourceId: '2' },
  ]);
  const gen = (await inbox.acquire('W'))!;
  const ids = (await inbox.claimBatch('W', gen)).map((e) => e.id);
  expect(ids).toHaveLength(2);
  return { gen, ids };
}

async function expectNothingFinished(inbox: Inbox): Promise<void> {
  const stats = await inbox.stats();
  expect(stats.events).toEqual({ pending: 0, running: 2, done: 0, dead: 0 });
  expect(stats.outbox).toEqual({ held: 0, sent: 0, undeliverable: 0, rejected: 0 });
}

async function expectFinishedOnce(inbox: Inbox, gen: number, ids: number[]): Promise<void> {
  expect(await inbox.finish('W', gen, ids, { messages: ['reply 1', 'reply 2'] })).toBe(true);
  const stats = await inbox.stats();
  expect(stats.events).toEqual({ pending: 0, running: 0, done: 2, dead: 0 });
  expect(stats.outbox).toEqual({ held: 2, sent: 0, undeliverable: 0, rejected: 0 });
  // A finish retried after a lost response is refused: the replies are never queued twice.
  expect(await inbox.finish('W', gen, ids, { messages: ['reply 1', 'reply 2'] })).toBe(false);
  expect((await inbox.stats()).outbox).toEqual({ held: 2, sent: 0, undeliverable: 0, rejected: 0 });
}

describe('connection loss in the middle of finish', () => {
  it('the server ends the session (pg_terminate_backend): finish fails, nothing is half-done, a retry finishes once', async () => {
    const { store, schema } = await open();
    const inbox = store.inbox('alice');
    const { gen, ids } = await claimedRun(inbox);

    const release = await holdWorkRow(schema, 'alice');
    const finishing = inbox.finish('W', gen, ids, { messages: ['reply 1', 'reply 2'] });
    const outcome = finishing.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    const pid = await blockedStoreSession();
    await expectWroteOutbox(pid, schema);
    const [terminated] = await db.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
    expect(terminated!.ok).toBe(true);
    const error = await outcome;
    expect(error).toBeInstanceOf(VigilError);
    expect((error as VigilError).code).toBe('store_unavailable');
    expect((error as VigilError).retryable).toBe(true);
    await release();

    await expectNothingFinished(inbox);
    await expectFinishedOnce(inbox, gen, ids);
  });

  it('the network drops (every socket cut): the transaction never commits, and the pool recovers', async () => {
    const { proxy, store, schema } = await openThroughProxy();
    const observer = (await open(db.url, schema)).store.inbox('alice'); // a direct view of the same rows
    const inbox = store.inbox('alice');
    const { gen, ids } = await claimedRun(inbox);

    const release = await holdWorkRow(schema, 'alice');
    const outcome = inbox.finish('W', gen, ids, { messages: ['reply 1', 'reply 2'] }).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await expectWroteOutbox(await blockedStoreSession(), schema);
    proxy.cut();
    const error = await outcome;
    expect(error).toBeInstanceOf(VigilError);
    expect((error as VigilError).code).toBe('store_unavailable');
    // The orphaned server session runs on when the lock frees, finds its
    // client gone, and rolls back; COMMIT was never sent.
    await release();

    await expectNothingFinishedEventually(observer);
    await expectFinishedOnce(inbox, gen, ids); // through new connections of the same pool
  });

  it('the network drops under a group of run steps (step-group.ts): no step of the group commits, not even one whose call had ended', async () => {
    const { proxy, store, schema } = await openThroughProxy();
    const observer = (await open(db.url, schema)).store; // a direct view of the same rows
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const id of ids) await store.inbox(id).ingestMany([{ source: 's', sourceId: '1' }, { source: 's', sourceId: '2' }]);
    const runs = await Promise.all(ids.map((id) => store.inbox(id).acquireAndClaim('W')));
    const finish = (i: number): Promise<{ finished: boolean }> =>
      store.inbox(ids[i]!).finishAndClaim('W', runs[i]!.gen, runs[i]!.events.map((e) => e.id), { messages: ['reply'] });

    // Asked in one turn, the finishes go out as groups; b's waits for its work row, after its group's first step ran.
    const release = await holdWorkRow(schema, 'b');
    const answered = ids.map(() => false);
    const steps = Promise.allSettled(ids.map((_, i) => finish(i).finally(() => (answered[i] = true))));
    const pid = await blockedStoreSession();
    await othersAnswered(pid, ids.map((id) => observer.inbox(id)), answered);
    proxy.cut();
    const settled = await steps;
    await release();
    await gone([pid]); // the orphaned session went on once the lock was free, then found its client gone

    const failed = ids.filter((_, i) => settled[i]!.status === 'rejected');
    expect(failed).toContain('b');
    expect(failed.length, 'more than b was cut off').toBeGreaterThan(1);
    for (const [i, id] of ids.entries()) {
      const stats = await observer.inbox(id).stats();
      if (failed.includes(id)) {
        expect(settled[i]).toMatchObject({ status: 'rejected', reason: { code: 'store_unavailable' } });
        expect(stats.events, id).toEqual({ pending: 0, running: 2, done: 0, dead: 0 });
        expect(stats.outbox.held, id).toBe(0);
        await expect(finish(i)).resolves.toMatchObject({ finished: true });
        await expect(finish(i)).resolves.toMatchObject({ finished: false }); // refused: the reply is queued once
        expect((await observer.inbox(id).stats()).outbox.held, id).toBe(1);
      } else {
        expect(stats.events, id).toEqual({ pending: 0, running: 0, done: 2, dead: 0 });
      }
    }
  });

  it('a deadlock with another session is store_busy, not an outage: nothing is half-done, and a retry finishes once', async () => {
    const { store, schema } = await open();
    const inbox = store.inbox('alice');
    const { gen, ids } = await claimedRun(inbox);

    // The other session holds the work row; finish() locks the inbox row, writes, then waits for the work row.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    cleanups.push(async () => {
      await client.end();
    });
    await client.query('BEGIN');
    await client.query(`SELECT 1 FROM ${schema}.work WHERE inbox_id = $1 FOR UPDATE`, ['alice']);
    const outcome = inbox.finish('W', gen, ids, { messages: ['reply 1', 'reply 2'] }).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await expectWroteOutbox(await blockedStoreSession(), schema);
    // Now the other session wants the inbox row finish() holds: a cycle. The
    // deadlock detector runs first for the session that has waited longest,
    // finish(), and ends its transaction.
    const other = client.query(`SELECT 1 FROM ${schema}.inboxes WHERE inbox_id = $1 FOR UPDATE`, ['alice']);
    const error = await outcome;
    expect(error).toBeInstanceOf(VigilError);
    expect((error as VigilError).code).toBe('store_busy');
    expect((error as VigilError).retryable).toBe(true);
    expect((error as VigilError).message).toMatch(/deadlock/);
    await other;
    await client.query('ROLLBACK');

    await expectNothingFinished(inbox);
    await expectFinishedOnce(inbox, gen, ids);
  });

  it('connections the server drops while the store is idle are replaced: the next call just works', async () => {
    const { store } = await open();
    const inbox = store.inbox('alice');
    await inbox.ingest({ source: 's', sourceId: '1' });
    // OFFSET 0 keeps the filter in front of the kill: it must never reach this session.
    const killed = await db.query<{ pid: number }>(
      `SELECT pid FROM (SELECT pid FROM pg_stat_activity
                        WHERE datname = current_database() AND application_name = 'vigil' OFFSET 0) store
       WHERE pg_terminate_backend(pid)`,
    );
    expect(killed.length).toBeGreaterThan(0);
    await gone(killed.map((row) => row.pid));
    // A backend leaves pg_stat_activity before its process exits and closes
    // the socket, and the pool learns of the close only when it reads it. A
    // call in that window fails as store_unavailable (retryable); this test
    // is about the call after it (it raced ~1 in 22 without the pause).
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await inbox.ingest({ source: 's', sourceId: '2' })).toBe(true);
    expect((await inbox.stats()).events.pending).toBe(2);
  });
});

/**
 * Waits (bounded) until the only store transaction left is the one blocked
 * on the held lock, and every finish whose rows committed has had its answer.
 * Another group may still be committing when that lock wait is seen; a cut
 * then would lose the answer to a COMMIT that went through (the caller sees
 * store_unavailable for a finish that did commit: an unknown outcome, not
 * the rollback this test is about). Under a busy machine that raced.
 */
async function othersAnswered(blocked: number, inboxes: Inbox[], answered: boolean[]): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const busy = await db.query(
      `SELECT 1 FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'vigil' AND pid <> $1 AND state <> 'idle'`,
      [blocked],
    );
    if (busy.length === 0) {
      const stats = await Promise.all(inboxes.map((inbox) => inbox.stats()));
      if (stats.every((s, j) => s.events.done === 0 || answered[j])) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('a finish outside the blocked transaction neither committed with its answer nor stopped');
}

/** Waits (bounded) until these server sessions have exited and their sockets closed. */
async function gone(pids: number[]): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const left = await db.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [pids]);
    if (left.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`sessions ${pids.join(', ')} did not exit`);
}

/**
 * The orphaned session still holds the inbox row until it notices its
 * client is gone; reads do not wait for it, so check until it is gone (bounded).
 */
async function expectNothingFinishedEventually(inbox: Inbox): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const busy = await db.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (busy.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await expectNothingFinished(inbox);
}

/** A TCP proxy to the server whose every connection can be cut at once. */
async function startProxy(target: URL): Promise<{ port: number; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('proxy has no port');
  return {
    port: address.port,
    cut() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
