/**
 * A read-only SQLite data dir under a running `vigil serve` (a read-only
 * bind mount over the dir; see test/fixtures/filesystem-faults.ts): every
 * file opened from then on is EROFS, as on a file system the kernel
 * remounted read-only after errors. Inbox files the process already has
 * open keep their writable descriptors, so those inboxes go on; an inbox
 * it has to open (a new one, or one whose file exists but was not open)
 * cannot be written: 503 `store_unavailable`, with the reason in the log.
 * Once the dir is writable again, every inbox works again, without a
 * restart, and every acknowledged message gets exactly one reply.
 *
 * Regression: SQLite opens a file it cannot write read-only, silently; when
 * another process kept the inbox's WAL files in place, that open succeeded
 * and the store cached the read-only connection, so the inbox refused
 * every write until the process restarted, long after the fault was gone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { isVigilError, openStore } from '../../src/index.js';
import { FaultyFilesystem } from '../fixtures/filesystem-faults.js';
import { ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { requires } from '../support/requires.js';
import { startReplyingService } from './replying-service.js';

// Mounts: skipped with the reason where they cannot be made, failed under CI.
requires('cap_sys_admin');

const harness = new ServiceHarness();
const filesystems: FaultyFilesystem[] = [];
afterEach(async () => {
  for (const fs of filesystems.splice(0)) fs.release();
  await harness.cleanup();
});

/** An inbox file that exists, written by another process, and holds no work (so the service has no reason to open it). */
async function createIdleInbox(dataDir: string, inboxId: string): Promise<void> {
  const store = await openStore(`sqlite:${dataDir}`);
  try {
    const inbox = store.inbox(inboxId);
    const gen = (await inbox.acquire('setup'))!;
    await inbox.release('setup', gen);
  } finally {
    await store.close();
  }
}

it('the store: an inbox opened while its file is read-only fails with store_unavailable, and works once the dir is writable again', async () => {
  const dir = join(harness.tempDir('vigil-ro-'), 'data');
  mkdirSync(dir);
  await createIdleInbox(dir, 'dave');
  const fs = FaultyFilesystem.at(dir);
  filesystems.push(fs);
  // Another process's connection keeps dave's WAL and shared-memory files in place, as a second worker or the CLI would.
  const other = await openStore(`sqlite:${dir}`);
  await other.inbox('dave').stats();
  const store = await openStore(`sqlite:${dir}`);
  try {
    fs.readOnly();
    for (const inbox of ['carol', 'dave']) {
      const refusal = await store.inbox(inbox).ingest({ source: 'test', sourceId: 'during' }).catch((error: unknown) => error);
      expect(isVigilError(refusal, 'store_unavailable'), `${inbox}: ${String(refusal)}`).toBe(true);
      expect((refusal as Error).message).toMatch(/read-only|cannot be opened/);
    }
    fs.writable();
    // Without a restart: the same store, the same process.
    expect(await store.inbox('carol').ingest({ source: 'test', sourceId: 'after' })).toBe(true);
    expect(await store.inbox('dave').ingest({ source: 'test', sourceId: 'after' })).toBe(true);
    expect((await store.inbox('dave').events()).map((e) => e.sourceId)).toEqual(['after']);
  } finally {
    await store.close();
    await other.close();
  }
});

it('vigil serve: deliveries to inboxes it must open get 503 while the dir is read-only, every inbox works again once it is writable, one reply per acknowledged message', async () => {
  const root = harness.tempDir('vigil-ro-serve-');
  const dataDir = join(root, 'data');
  mkdirSync(dataDir);
  await createIdleInbox(dataDir, 'dave');
  const markers = join(root, 'markers');
  mkdirSync(markers);
  writeFileSync(join(markers, 'release'), ''); // the agent answers at once
  const { serve, post, replies } = await startReplyingService(harness, root, 'sqlite:./data', markers);
  const acked: string[] = [];

  expect((await post('alice', 'a1')).status).toBe(202);
  acked.push('a1');
  await waitFor('the reply to a1', () => replies().includes('reply to a1'));

  // Another process (a second worker, the CLI) has dave open: its WAL and shared-memory files stay in place,
  // so the service's open of dave during the fault succeeds read-only instead of failing outright.
  const other = await openStore(`sqlite:${dataDir}`);
  await other.inbox('dave').stats();
  const fs = FaultyFilesystem.at(dataDir);
  filesystems.push(fs);
  fs.readOnly();
  // alice's file is open: its descriptors stay writable, and what is acknowledged is stored.
  const a2 = await post('alice', 'a2');
  expect([202, 503]).toContain(a2.status);
  if (a2.status === 202) acked.push('a2');
  // carol is new, dave's file exists but was never opened by this process: both need an open.
  for (const inbox of ['carol', 'dave']) {
    const response = await post(inbox, `${inbox}-during`);
    expect(response.status, inbox).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ error: { code: 'store_unavailable' } });
  }
  const logged = serve.logs.filter((l) => l.msg === 'store unavailable: store_unavailable').map((l) => JSON.stringify(l.err));
  expect(logged.some((text) => /carol\.db/.test(text) && /cannot be opened|read-only/.test(text)), logged.join('\n')).toBe(true);
  expect(logged.some((text) => /dave\.db/.test(text) && /cannot be opened|read-only/.test(text)), logged.join('\n')).toBe(true);

  fs.writable();
  await other.close();
  // The client retries; the same process now stores them.
  for (const inbox of ['carol', 'dave']) {
    const response = await post(inbox, `${inbox}-during`);
    expect(response.status, `${inbox} after the dir is writable again: ${await response.clone().text()}`).toBe(202);
    acked.push(`${inbox}-during`);
  }
  await waitFor('a reply to every acknowledged message', () => acked.every((key) => replies().includes(`reply to ${key}`)), 30_000);
  await new Promise((resolve) => setTimeout(resolve, 500)); // room for a stray second reply to show up
  expect([...replies()].sort()).toEqual(acked.map((key) => `reply to ${key}`).sort());

  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
  const store = await openStore(`sqlite:${dataDir}`);
  try {
    for (const inbox of ['alice', 'carol', 'dave']) {
      for (const event of await store.inbox(inbox).events()) expect(event.status, `${inbox} ${event.sourceId}`).toBe('done');
    }
    const stored = (await Promise.all(['alice', 'carol', 'dave'].map((inbox) => store.inbox(inbox).events()))).flat().map((e) => e.sourceId);
    expect(stored.sort()).toEqual([...acked].sort());
  } finally {
    await store.close();
  }
});
