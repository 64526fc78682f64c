/**
 * R9 under R12: two processes dispatch the same outbox in a loop while a third
 * queues replies the way runs do; every message goes out exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type StoreOptions } from '../../src/index.js';
import { ProcessPool, sleep } from '../fixtures/child-processes.js';

const pool = new ProcessPool();
afterEach(() => pool.cleanup());

function readLog(file: string): { id: number; body: string }[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return []; // this dispatcher never sent anything
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { id: number; body: string });
}

describe('SQLite store, two dispatchers', () => {
  it('R9: two dispatching processes never send the same message; every queued message is sent once', async () => {
    const dir = pool.tempDir();
    // The default leaseTtlMs reserves a batch for two minutes: far longer than
    // any send here, so a resend (allowed, at-least-once) cannot excuse a duplicate.
    const options: StoreOptions = { outboxGapMs: 0 };
    const seed = Date.now() % 100_000;
    const logs = [join(dir, 'sent-0.jsonl'), join(dir, 'sent-1.jsonl')];
    const dispatchers = logs.map((log, worker) =>
      pool.start({ role: 'dispatcher', dir, options, worker, seed, log, atMostOnceEvery: worker === 1 ? 3 : 0 }),
    );
    const queuer = pool.start({ role: 'queuer', dir, options, worker: 2, seed, events: 100 });
    await pool.go([...dispatchers, queuer]);

    // Queue until both dispatchers have sent something: which one wins the
    // lock is up to SQLite's busy wait, and one can starve for a while.
    const deadline = Date.now() + 45_000;
    while (logs.some((log) => readLog(log).length === 0) && Date.now() < deadline) await sleep(20);
    queuer.send({ type: 'stop' });
    const queued = (await queuer.next('result', 45_000)).queued as string[];
    await sleep(20);
    for (const dispatcher of dispatchers) dispatcher.send({ type: 'stop' });
    const results = await Promise.all(dispatchers.map((dispatcher) => dispatcher.next('result', 20_000)));

    const sent = logs.map(readLog);
    const all = sent.flat();
    const bodies = all.map((message) => message.body);
    expect(bodies.length, `seed ${seed}: a message was sent twice`).toBe(new Set(bodies).size);
    expect(new Set(all.map((message) => message.id)).size).toBe(all.length);
    expect([...bodies].sort()).toEqual([...queued].sort());
    expect(queued.length).toBeGreaterThan(100);

    // Both dispatchers really sent batches, so they raced for the same outbox.
    expect(results.map((result) => (result.batches as number) > 0)).toEqual([true, true]);
    expect(sent[0]!.length, 'dispatcher 0 never sent').toBeGreaterThan(0);
    expect(sent[1]!.length, 'dispatcher 1 never sent').toBeGreaterThan(0);

    const store = await openStore(`sqlite:${dir}`, options);
    try {
      expect((await store.inbox('shared').stats()).outbox).toEqual({ held: 0, sent: queued.length, undeliverable: 0, rejected: 0 });
    } finally {
      await store.close();
    }
  });
});
