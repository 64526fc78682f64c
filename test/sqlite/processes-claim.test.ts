/**
 * R3 and R4 under R12: worker processes race acquire → claimBatch → finish on
 * one inbox while their leases really expire mid-run (real clock, short
 * leaseTtlMs), so other workers take over and the stale finishes must be
 * refused by the fence.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type StoreOptions } from '../../src/index.js';
import { ProcessPool } from '../fixtures/child-processes.js';

const pool = new ProcessPool();
afterEach(() => pool.cleanup());

interface FinishRecord {
  gen: number;
  ids: number[];
  outcome: 'done' | 'error';
  ok: boolean;
}

describe('SQLite store, workers racing a takeover', () => {
  it('R3: no event is done twice and no reply is queued twice when leases expire mid-run', async () => {
    const dir = pool.tempDir();
    const options: StoreOptions = {
      leaseTtlMs: 40,
      maxAttempts: 1000, // every event must end done, however often it was taken over
      retryBackoff: { baseMs: 0, maxMs: 0 },
      batchLimit: 6,
      outboxGapMs: 0,
    };
    const total = 60;
    const seed = Date.now() % 100_000;
    const setup = await openStore(`sqlite:${dir}`, options);
    const inbox = setup.inbox('shared');
    await inbox.ingestMany(Array.from({ length: total }, (_, i) => ({ source: 'job', sourceId: String(i) })));
    const ids = (await inbox.events({ limit: 1000 })).map((row) => row.id);
    await setup.close();

    const children = Array.from({ length: 4 }, (_, worker) =>
      pool.start({ role: 'claimFinish', dir, options, worker, seed, runMs: 25_000, slowMs: [45, 80] }),
    );
    await pool.go(children);
    const results = await Promise.all(children.map((child) => child.next('result', 45_000)));
    const finishes = results.flatMap((result) => result.finishes as FinishRecord[]);

    const store = await openStore(`sqlite:${dir}`, options);
    try {
      const rows = await store.inbox('shared').events({ limit: 1000 });
      expect(rows.filter((row) => row.status !== 'done'), `seed ${seed}: events not done`).toEqual([]);

      // Each event was finished as done exactly once by a finish the store accepted.
      const doneIds = finishes.filter((f) => f.ok && f.outcome === 'done').flatMap((f) => f.ids);
      expect(doneIds.length, `seed ${seed}: an event finished twice`).toBe(new Set(doneIds).size);
      expect([...doneIds].sort((a, b) => a - b)).toEqual(ids);

      // The outbox holds exactly one reply per event: none lost, none queued by a refused finish.
      const sent: string[] = [];
      let batches = 0;
      while ((await store.inbox('shared').dispatch((body) => void sent.push(...body.split('\n\n')))) > 0) batches++;
      expect(batches).toBeGreaterThan(0);
      expect(sent.sort()).toEqual(ids.map((id) => `done:${id}`).sort());

      // The race really happened: stale finishes were refused and their events ran again.
      expect(finishes.filter((f) => !f.ok).length, 'no finish was refused: no takeover happened').toBeGreaterThan(0);
      expect(rows.some((row) => row.attempts > 1)).toBe(true);
      expect(new Set(finishes.filter((f) => f.ok).map((f) => f.gen)).size).toBeGreaterThan(1);
    } finally {
      await store.close();
    }
  });
});
