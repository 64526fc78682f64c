/**
 * R1 and R2 under R12: several real processes hit the same inbox file at the
 * same instant (a start barrier releases them together).
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { ProcessPool, sleep, type Child } from '../fixtures/child-processes.js';

const pool = new ProcessPool();
afterEach(() => pool.cleanup());

describe('SQLite store, several processes at once', () => {
  it('R1: overlapping ingests of the same keys store each key once, with exactly one true per key', async () => {
    const dir = pool.tempDir();
    const keys = Array.from({ length: 300 }, (_, i) => `key-${i}`);
    const seed = Date.now() % 100_000;
    const children = Array.from({ length: 6 }, (_, worker) =>
      pool.start({ role: 'ingest', dir, options: {}, worker, keys, seed }),
    );
    await pool.go(children);
    const results = await Promise.all(children.map((child) => child.next('result')));

    const winner = new Map<string, number[]>();
    results.forEach((result, worker) => {
      for (const key of result.wins as string[]) winner.set(key, [...(winner.get(key) ?? []), worker]);
    });
    const notOnce = keys.filter((key) => winner.get(key)?.length !== 1);
    expect(notOnce, `seed ${seed}: keys without exactly one true`).toEqual([]);
    // The work really was shared: more than one process won some keys.
    expect(new Set([...winner.values()].map((workers) => workers[0])).size).toBeGreaterThan(1);

    const store = await openStore(`sqlite:${dir}`);
    try {
      const rows = await store.inbox('shared').events({ limit: 10_000 });
      expect(rows.map((row) => row.sourceId).sort()).toEqual([...keys].sort());
      // The first payload wins (R1): the stored payload is the winner's.
      for (const row of rows) expect(row.payload).toEqual({ worker: winner.get(row.sourceId)![0] });
      expect((await store.inbox('shared').stats()).events.pending).toBe(keys.length);
    } finally {
      await store.close();
    }
  });

  it('R12: processes creating the same new store directory and inbox file at the same instant all succeed', async () => {
    const dir = pool.tempDir();
    const rounds = 20;
    // Round 0 is made certain to collide: this process holds the write lock on
    // both brand-new files, as a creator that is slow to switch them to WAL
    // would. Switching waits for the lock instead of failing at once (SQLite
    // skips its busy timeout there), so every child must get through.
    mkdirSync(join(dir, 'store-0'));
    const holders = ['_vigil-ready.db', 'new.db'].map((file) => new Database(join(dir, 'store-0', file)));
    for (const db of holders) db.exec('BEGIN IMMEDIATE');
    const children = Array.from({ length: 4 }, (_, worker) =>
      pool.start({ role: 'fresh', dir, options: {}, worker, rounds, stepMs: 30 }),
    );
    try {
      const at = await pool.go(children);
      await sleep(at + 300 - Date.now());
    } finally {
      for (const db of holders) {
        db.exec('COMMIT');
        db.close();
      }
    }
    // A child that hit SQLITE_BUSY (store_busy) while opening fails here with its error.
    const results = await Promise.all(children.map((child) => child.next('result')));
    const wins = results.flatMap((result) => result.wins as number[]).sort((a, b) => a - b);
    expect(wins).toEqual(Array.from({ length: rounds }, (_, round) => round));
    for (let round = 0; round < rounds; round++) {
      const store = await openStore(`sqlite:${dir}/store-${round}`);
      try {
        expect((await store.inbox('new').stats()).events.pending).toBe(1);
      } finally {
        await store.close();
      }
    }
  });

  it('R2: processes acquiring at the same instant get one lease; after release the next winner has gen + 1', async () => {
    const dir = pool.tempDir();
    const children: Child[] = Array.from({ length: 5 }, (_, worker) => pool.start({ role: 'acquire', dir, options: {}, worker }));
    const store = await openStore(`sqlite:${dir}`);
    try {
      const winners = new Set<number>();
      for (let round = 0; round < 6; round++) {
        if (round === 0) await pool.go(children, { round });
        else {
          const at = Date.now() + 30;
          for (const child of children) child.send({ type: 'go', at, round });
        }
        const answers = await Promise.all(children.map((child) => child.next('acquired')));
        const gens = answers.map((answer) => answer.gen as number | null);
        const won = gens.flatMap((gen, worker) => (gen === null ? [] : [worker]));
        expect(won, `round ${round}: ${JSON.stringify(gens)}`).toHaveLength(1);
        const worker = won[0]!;
        expect(gens[worker]).toBe(round + 1);
        winners.add(worker);
        expect((await store.inbox('shared').stats()).lease).toMatchObject({ holder: `holder-${worker}`, gen: round + 1 });

        children[worker]!.send({ type: 'release', gen: round + 1 });
        expect((await children[worker]!.next('released')).ok).toBe(true);
      }
      for (const child of children) child.send({ type: 'stop' });
      await Promise.all(children.map((child) => child.exited));
    } finally {
      await store.close();
    }
  });
});
