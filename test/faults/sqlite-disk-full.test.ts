/**
 * A full disk under a SQLite data dir (a small tmpfs, filled with a ballast
 * file until the kernel says ENOSPC; see test/fixtures/filesystem-faults.ts).
 *
 * The store: a write that does not fit is a VigilError `store_unavailable`
 * saying the disk is full, retryable, and stores nothing; every `true`
 * ingest before it is still there; once space is freed, writes work again.
 *
 * The service: a delivery that cannot be stored gets 503 JSON with that
 * code and Retry-After, and the log says the disk is full; a run that
 * finishes while the disk is full cannot record its outcome, so its events
 * run again once there is space: every acknowledged message gets exactly
 * one reply, none is lost, and the client's retries of the refused ones
 * are stored once.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { isVigilError, openStore, type VigilError } from '../../src/index.js';
import { FaultyFilesystem } from '../fixtures/filesystem-faults.js';
import { ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { requires } from '../support/requires.js';
import { startReplyingService } from './replying-service.js';

/** Big enough that a few of them need new pages in the WAL, not ones a checkpoint freed. */
const BIG_TEXT = 'x'.repeat(200_000);

// Mounts: skipped with the reason where they cannot be made, failed under CI.
requires('cap_sys_admin');

const harness = new ServiceHarness();
const filesystems: FaultyFilesystem[] = [];
afterEach(async () => {
  // Lazy unmounts first: a child still holding files cannot keep the mount, and the dirs below it can then be removed.
  for (const fs of filesystems.splice(0)) fs.release();
  await harness.cleanup();
});

it('the store: a write on a full disk is store_unavailable "the disk is full", stores nothing, and works again once space is freed', async () => {
  const dir = join(harness.tempDir('vigil-full-'), 'data');
  const fs = FaultyFilesystem.tmpfs(dir, 2 * 1024 * 1024);
  filesystems.push(fs);
  const store = await openStore(`sqlite:${dir}`);
  try {
    const inbox = store.inbox('alice');
    const acked: string[] = [];
    for (let i = 0; i < 5; i++) {
      expect(await inbox.ingest({ source: 'test', sourceId: `before-${i}` })).toBe(true);
      acked.push(`before-${i}`);
    }
    fs.fill();
    let refusal: VigilError | null = null;
    // Bounded: the WAL may still have room for a few; big payloads use it up.
    for (let i = 0; i < 50 && refusal === null; i++) {
      try {
        if (await inbox.ingest({ source: 'test', sourceId: `during-${i}`, payload: { text: BIG_TEXT } })) acked.push(`during-${i}`);
      } catch (error) {
        if (!isVigilError(error)) throw error;
        refusal = error;
      }
    }
    expect(refusal, 'no write failed on the full disk').not.toBeNull();
    expect(refusal!.code).toBe('store_unavailable');
    expect(refusal!.retryable).toBe(true);
    expect(refusal!.message).toMatch(/^the disk is full \(SQLITE_FULL on .*alice\.db\); nothing was written$/);
    // The worker's side fails the same way, and clearly.
    await expect(inbox.acquire('w1').then((gen) => inbox.claimBatch('w1', gen!))).rejects.toMatchObject({ code: 'store_unavailable' });

    fs.free();
    expect(await inbox.ingest({ source: 'test', sourceId: 'after' })).toBe(true);
    acked.push('after');
    const gen = (await inbox.acquire('w2'))!;
    const claimed = await inbox.claimBatch('w2', gen);
    expect(await inbox.finish('w2', gen, claimed.map((e) => e.id))).toBe(true);
    const events = await inbox.events({ limit: 1000 });
    // Everything acknowledged is there once; the refused one is not.
    expect(events.map((e) => e.sourceId).sort()).toEqual([...acked].sort());
    expect(events.every((e) => e.status === 'done')).toBe(true);
  } finally {
    await store.close();
  }
});

it('vigil serve: deliveries get 503 store_unavailable while the disk is full, the run that could not record its outcome runs again after, one reply per acknowledged message', async () => {
  const root = harness.tempDir('vigil-full-serve-');
  const fs = FaultyFilesystem.tmpfs(join(root, 'data'), 8 * 1024 * 1024);
  filesystems.push(fs);
  const markers = join(root, 'markers');
  mkdirSync(markers);
  const { serve, url, post, replies } = await startReplyingService(harness, root, 'sqlite:./data', markers);
  const acked: string[] = [];

  // A run is in the agent when the disk fills up.
  expect((await post('alice', 'm1')).status).toBe(202);
  acked.push('m1');
  await waitFor('the run for m1', () => readdirSync(markers).some((name) => name.endsWith('-m1')));
  expect((await post('alice', 'm2')).status).toBe(202);
  acked.push('m2');

  // An empty WAL, then no space: every write from here on needs pages the disk does not have
  // (otherwise a checkpointed WAL lets small commits reuse its frames, and only big ones fail).
  truncateWal(join(root, 'data', 'alice.db'));
  fs.fill();
  const refused: { inbox: string; key: string }[] = [];
  let refusal: { status: number; retryAfter: string | null; body: unknown } | null = null;
  for (let i = 0; i < 50 && refusal === null; i++) {
    const key = `full-${i}`;
    const inbox = i % 2 === 0 ? 'alice' : 'bob';
    const response = await post(inbox, key, BIG_TEXT);
    if (response.status === 202) acked.push(key);
    else {
      refused.push({ inbox, key });
      refusal = { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
    }
  }
  expect(refusal, 'no delivery was refused on the full disk').toMatchObject({
    status: 503,
    retryAfter: '1',
    body: { error: { code: 'store_unavailable', message: 'the store is unavailable right now; retry later' } },
  });
  // Reads still work, writes do not: the probe write (a block in the data directory) fails too, so the
  // health check says so (a load balancer takes it out of rotation), with a reason class and no path.
  const health = await fetch(`${url}/healthz`);
  expect(health.status).toBe(503);
  const said = await health.text();
  expect(JSON.parse(said)).toMatchObject({ ok: false, status: 'degraded', reason: 'store_unwritable', error: { code: 'store_unavailable', message: 'the store takes no writes' } });
  expect(said).not.toContain(root);
  // The operator's side: the log says what is wrong.
  const logged = await serve.log('the store_unavailable warning', (l) => l.msg === 'store unavailable: store_unavailable');
  expect(JSON.stringify(logged.err)).toMatch(/the disk is full \(SQLITE_FULL/);
  const degraded = await serve.log('the degraded line', (l) => l.msg === 'the store takes no writes: /healthz says degraded (store_unwritable)');
  expect(degraded.error).toMatch(/the disk is full \(ENOSPC on /);
  // The store's failure, not alice's: no inbox is marked for it.
  expect(serve.logs.filter((l) => l.msg.startsWith('writes to this inbox fail'))).toEqual([]);

  // The run finishes while the disk is still full: its outcome cannot be written.
  writeFileSync(join(markers, 'release'), '');
  const failedTurn = await serve.log('the turn whose finish hit the full disk', (l) => l.msg === 'worker: an inbox turn failed; retrying it with a growing wait (further failures are debug lines)', 15_000);
  expect(failedTurn).toMatchObject({ level: 50, inboxId: 'alice' });
  expect(JSON.stringify(failedTurn.err)).toMatch(/the disk is full \(SQLITE_FULL on [^)]*alice\.db\); nothing was written/);
  expect(replies()).toEqual([]);

  fs.free();
  // The client retries what was refused; now it is stored, and the service is healthy again.
  for (const { inbox, key } of refused) {
    expect((await post(inbox, key, BIG_TEXT)).status).toBe(202);
    acked.push(key);
  }
  expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true, status: 'ok' });
  await waitFor('a reply to every acknowledged message', () => acked.every((key) => replies().includes(`reply to ${key}`)), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 500)); // room for a stray second reply to show up

  expect([...replies()].sort()).toEqual(acked.map((key) => `reply to ${key}`).sort());
  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  const store = await openStore(`sqlite:${join(root, 'data')}`);
  try {
    const stored = [...(await store.inbox('alice').events({ limit: 1000 })), ...(await store.inbox('bob').events({ limit: 1000 }))];
    expect(stored.map((e) => e.sourceId).sort()).toEqual([...acked].sort());
    expect(stored.filter((e) => e.status !== 'done')).toEqual([]);
    // m1's first run could not record its outcome: it ran again, and its one reply is from that second run.
    expect(stored.find((e) => e.sourceId === 'm1')!.attempts).toBe(2);
  } finally {
    await store.close();
  }
  expect(existsSync(join(root, 'data', 'ballast.bin'))).toBe(false);
});

function truncateWal(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
