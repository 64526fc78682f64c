/**
 * The whole conformance suite again on SQLite with the writer thread on
 * (StoreOptions.writerThread, what `vigil serve` runs): ingests commit on
 * another thread, through connections of its own, and every rule must hold
 * exactly as it does on the calling thread. The suite's fake clock is one the
 * thread can read (createFakeClock keeps its time in shared memory); the
 * one test that brings a clock function of its own (R10, a clock that turns
 * fractional) runs on the calling thread, as the option documents.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createFakeClock, openStore } from '../../src/index.js';
import { sqliteBackendOf } from '../../src/store/sqlite/sqlite-store.js';
import type { StoreTarget } from './harness.js';
import { sqliteRawWrite } from './sqlite-raw-write.js';
import { runStoreConformance } from './suite.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const threaded: StoreTarget = {
  name: 'sqlite, writer thread',
  capabilities: { databaseClock: false },
  async open(options) {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-conformance-thread-'));
    dirs.push(dir);
    return {
      store: await openStore(`sqlite:${dir}`, { ...options, writerThread: true }),
      reopen: (more) => openStore(`sqlite:${dir}`, { ...options, writerThread: true, ...more }),
      rawWrite: sqliteRawWrite(dir),
    };
  },
};

it('the suite really runs on the thread: its fake clock is one the thread can read', async () => {
  const { store } = await threaded.open({ clock: createFakeClock(0).now });
  try {
    expect(sqliteBackendOf(store).threaded).toBe(true);
  } finally {
    await store.close();
  }
});

runStoreConformance(threaded);
