/**
 * R10 and the ready index under R12: processes killed with SIGKILL at random
 * points lose nothing they reported as stored, and the ready index never
 * hides an inbox's work after concurrent writers (some of them killed).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type StoreOptions } from '../../src/index.js';
import { ProcessPool, randomInt, rng, sleep, type Child } from '../fixtures/child-processes.js';

const pool = new ProcessPool();
afterEach(() => pool.cleanup());

/** Collects the child's complete stdout lines; SIGKILLs it (by PID) once `killAfter` lines were read, `delayMs` later. */
function readUntilKill(child: Child, killAfter: number, delayMs?: number): Promise<string[]> {
  return new Promise((resolve) => {
    const lines: string[] = [];
    let partial = '';
    let killing = false;
    const stdout = child.proc.stdout!;
    stdout.setEncoding('utf8');
    stdout.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!; // a line cut short by the kill was never fully printed
      lines.push(...parts);
      if (lines.length < killAfter || killing) return;
      killing = true;
      if (delayMs === undefined) child.kill();
      else setTimeout(() => child.kill(), delayMs);
    });
    child.proc.on('close', () => resolve(lines));
  });
}

describe('SQLite store, processes killed mid-write', () => {
  it('R10: every key printed right after ingest returned true is stored after SIGKILL', async () => {
    const dir = pool.tempDir();
    const seed = Date.now() % 100_000;
    const random = rng(seed);
    const printed: string[] = [];
    for (let round = 0; round < 4; round++) {
      // Crash durability holds at both settings: a process dying is not a power loss.
      const options: StoreOptions = { synchronous: round % 2 === 0 ? 'full' : 'normal' };
      const child = pool.start({ role: 'ingestUntilKilled', dir, options, worker: round, seed, prefix: `r${round}` });
      const killAfter = round === 0 ? 1 : randomInt(random, 1, 250);
      const reading = readUntilKill(child, killAfter);
      await pool.go([child]);
      const lines = await reading;
      expect((await child.exited).signal, `round ${round}: the child ended before the kill\n${child.stderr}`).toBe('SIGKILL');
      expect(lines.length).toBeGreaterThanOrEqual(killAfter);
      printed.push(...lines);

      const store = await openStore(`sqlite:${dir}`, options);
      try {
        const inbox = store.inbox('shared');
        const missing: string[] = [];
        for (const key of printed) if ((await inbox.getEvent('kill', key)) === null) missing.push(key);
        expect(missing, `seed ${seed}, round ${round}: printed but not stored`).toEqual([]);
        // Nothing holds a lease and events are pending: the ready index must say so.
        expect(await store.readyInboxes()).toContain('shared');
      } finally {
        await store.close();
      }
    }

    const db = new Database(join(dir, 'shared.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const keys = db.prepare("SELECT source_id FROM events WHERE source = 'kill'").pluck().all() as string[];
      expect(keys.length).toBe(new Set(keys).size);
      expect(keys.length).toBeGreaterThanOrEqual(printed.length);
    } finally {
      db.close();
    }
    const store = await openStore(`sqlite:${dir}`);
    try {
      expect(await store.inbox('shared').ingest({ source: 'kill', sourceId: 'after-the-crashes' })).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('R10 with the writer thread: 64 ingests at once, SIGKILL mid-stream; every key printed after its true is stored', async () => {
    const dir = pool.tempDir();
    const seed = Date.now() % 100_000;
    const random = rng(seed);
    const printed: string[] = [];
    for (let round = 0; round < 5; round++) {
      const options: StoreOptions = { writerThread: true };
      const child = pool.start({ role: 'ingestConcurrentlyUntilKilled', dir, options, worker: round, seed, prefix: `t${round}`, concurrency: 64 });
      // Past the first group commits, then at a moment of its own rather than right after a print, so the kill
      // lands wherever the child is: between groups, on the thread, in an fsync.
      const reading = readUntilKill(child, randomInt(random, 65, 2_000), randomInt(random, 0, 30));
      await pool.go([child]);
      const lines = await reading;
      expect((await child.exited).signal, `round ${round}: the child ended before the kill\n${child.stderr}`).toBe('SIGKILL');
      printed.push(...lines);

      const db = new Database(join(dir, 'shared.db'), { readonly: true });
      try {
        const stored = new Set(db.prepare("SELECT source_id FROM events WHERE source = 'kill'").pluck().all() as string[]);
        const missing = printed.filter((key) => !stored.has(key));
        expect(missing, `seed ${seed}, round ${round}: printed but not stored`).toEqual([]);
      } finally {
        db.close();
      }
    }
    const store = await openStore(`sqlite:${dir}`);
    try {
      // The index was kept across the kills: nothing holds a lease and events are pending.
      expect(await store.readyInboxes()).toContain('shared');
    } finally {
      await store.close();
    }
  });

  it('the ready index lists every inbox with work left after racing writers, some killed mid-run', async () => {
    const dir = pool.tempDir();
    const seed = Date.now() % 100_000;
    const random = rng(seed);
    const options: StoreOptions = {
      leaseTtlMs: 150,
      retryBackoff: { baseMs: 20, maxMs: 100 },
      outboxGapMs: 0,
    };
    const inboxes = Array.from({ length: 6 }, (_, i) => `inbox-${i}`);
    const children = Array.from({ length: 3 }, (_, worker) =>
      pool.start({
        role: 'chaos',
        dir,
        options,
        worker,
        seed,
        inboxes,
        timerInboxes: inboxes.slice(3),
        runMs: 20_000,
        abandon: worker === 2 ? inboxes.slice(0, 3) : [],
      }),
    );
    await pool.go(children);
    // Two are killed at random moments (often inside a transaction); one is stopped.
    await sleep(randomInt(random, 400, 900));
    children[0]!.kill();
    await sleep(randomInt(random, 50, 400));
    children[1]!.kill();
    children[2]!.send({ type: 'stop' });
    const result = await children[2]!.next('result');
    expect(result.ops).toBeGreaterThan(0);
    // The stopped one then claims everything in three inboxes and walks away, as a crashed run would.
    expect((result.abandoned as string[]).length, 'no inbox was left with only a stalled run').toBeGreaterThan(0);
    await Promise.all(children.map((child) => child.exited));
    // Past every lease, backoff, timer and approval the children could have set.
    await sleep(450);

    const store = await openStore(`sqlite:${dir}`, options);
    try {
      // Read the index before anything writes (a write would re-derive the entry),
      // and judge timers by a time no later than the index was asked at.
      const now = Date.now();
      const ready = await store.readyInboxes({ limit: 1000 });
      const dispatchable = await store.dispatchableInboxes({ limit: 1000 });
      const needWork: string[] = [];
      const needSend: string[] = [];
      for (const id of await store.inboxes()) {
        const inbox = store.inbox(id);
        const { events, outbox } = await inbox.stats();
        const dueTimer = (await inbox.timers()).some((timer) => !timer.done && timer.due <= now);
        if (events.pending > 0 || events.running > 0 || dueTimer) needWork.push(id);
        if (outbox.held > 0) needSend.push(id);
      }
      expect(needWork.length, 'no inbox had work left: the check would prove nothing').toBeGreaterThan(0);
      expect(needWork.filter((id) => !ready.includes(id)), `seed ${seed}: work hidden from readyInboxes`).toEqual([]);
      expect(needSend.filter((id) => !dispatchable.includes(id)), `seed ${seed}: messages hidden from dispatchableInboxes`).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
