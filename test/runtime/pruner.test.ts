/**
 * Retention in the background (runtime/pruner.ts): a sweep prunes
 * everything past its time in batches, pausing between them; `vigil serve`
 * with `engine.retention` runs one at start and then every minute.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeClock, openStore, type Store } from '../../src/index.js';
import { Pruner } from '../../src/runtime/pruner.js';
import { REPO_ROOT, ServiceHarness, waitFor } from '../fixtures/service-process.js';
import { defer, tempStore } from './helpers.js';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

async function doneEvents(store: Store, inboxId: string, count: number): Promise<void> {
  const inbox = store.inbox(inboxId);
  await inbox.ingestMany(Array.from({ length: count }, (_, n) => ({ source: 's', sourceId: `e${n}` })));
  const gen = (await inbox.acquire('W'))!;
  const claimed = await inbox.claimBatch('W', gen);
  expect(await inbox.finish('W', gen, claimed.map((e) => e.id))).toBe(true);
  await inbox.release('W', gen);
}

describe('Pruner', () => {
  it('one sweep prunes every inbox to the end, a batch at a time, and counts them in store:pruned', async () => {
    const clock = createFakeClock(1_000_000);
    const { store } = await tempStore({ clock: clock.now, retention: { doneEventsMs: 1_000 } });
    for (const id of ['alice', 'bob']) await doneEvents(store, id, 25);
    clock.advance(1_000);
    const batches: number[] = [];
    store.events.on('store:pruned', (e) => batches.push(e.events));
    await new Pruner({ store, batch: 10 }).sweep();
    expect(batches.reduce((a, b) => a + b, 0)).toBe(50);
    expect(Math.max(...batches)).toBeLessThanOrEqual(10);
    for (const id of ['alice', 'bob']) {
      expect((await store.inbox(id).stats()).events.done).toBe(0);
      expect(await store.inbox(id).ingest({ source: 's', sourceId: 'e0' })).toBe(false);
    }
  });

  it('pauses after each batch nineteen times as long as the batch took: pruning takes at most a twentieth of the time', async () => {
    const clock = createFakeClock(1_000_000);
    const { store } = await tempStore({ clock: clock.now, retention: { doneEventsMs: 0 } });
    await doneEvents(store, 'alice', 4);
    clock.advance(1);
    // Each prune call takes at least 20 ms; when each one started and ended.
    const calls: { start: number; end: number }[] = [];
    const slow = new Proxy(store, {
      get: (target, key, receiver) =>
        key === 'prune'
          ? async (options: { limit?: number }) => {
              const start = performance.now();
              await new Promise((resolve) => setTimeout(resolve, 20));
              const result = await target.prune(options);
              calls.push({ start, end: performance.now() });
              return result;
            }
          : (Reflect.get(target, key, receiver) as unknown),
    });
    await new Pruner({ store: slow, batch: 1 }).sweep();
    expect(calls.length).toBeGreaterThanOrEqual(4);
    // A pause can only come out longer than asked (timers never fire early): a lower bound holds on any machine.
    for (let i = 1; i < calls.length; i++) {
      const took = calls[i - 1]!.end - calls[i - 1]!.start;
      expect(calls[i]!.start - calls[i - 1]!.end).toBeGreaterThanOrEqual(19 * took - 2);
    }
  });

  it('start() sweeps at once and again every everyMs; stop() ends it between batches', async () => {
    const clock = createFakeClock(1_000_000);
    const { store } = await tempStore({ clock: clock.now, retention: { doneEventsMs: 0 } });
    await doneEvents(store, 'alice', 3);
    clock.advance(1);
    const pruner = new Pruner({ store, everyMs: 50 });
    defer(() => pruner.stop());
    pruner.start();
    await waitFor('the first sweep', async () => (await store.inbox('alice').stats()).events.done === 0);
    await store.inbox('alice').ingest({ source: 's', sourceId: 'late' });
    const inbox = store.inbox('alice');
    const gen = (await inbox.acquire('W'))!;
    const [late] = await inbox.claimBatch('W', gen);
    await inbox.finish('W', gen, [late!.id]);
    clock.advance(1);
    await waitFor('the next sweep', async () => (await inbox.getEvent('s', 'late')) === null);
    await pruner.stop();
  });
});

describe('vigil serve with engine.retention', () => {
  it('prunes in the background: done events past their time go, their keys stay', async () => {
    const dir = harness.tempDir();
    const data = join(dir, 'data');
    const seeded = await openStore(`sqlite:${data}`);
    await doneEvents(seeded, 'alice', 5);
    await seeded.close();
    const config = harness.writeConfig(dir, {
      store: 'sqlite:./data',
      port: 0,
      agent: join(REPO_ROOT, 'test/fixtures/quiet-agent.ts'),
      channels: { console: {} },
      engine: { retention: { doneEventsMs: 0 } },
    });
    const serve = harness.serve(config);
    await serve.url();
    await waitFor('the background prune', async () => {
      const store = await openStore(`sqlite:${data}`);
      try {
        return (await store.inbox('alice').stats()).events.done === 0;
      } finally {
        await store.close();
      }
    });
    const store = await openStore(`sqlite:${data}`);
    defer(() => store.close());
    expect(await store.inbox('alice').ingest({ source: 's', sourceId: 'e3' })).toBe(false);
  });
});
