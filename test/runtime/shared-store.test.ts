/**
 * Several pools on one store: the lease, not the pools, keeps one run per
 * inbox. Two store objects on one directory are what two `vigil serve`
 * processes would have (each hears only its own writes' hints).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/agent/agent.js';
import type { Store } from '../../src/index.js';
import { RuntimeEvents } from '../../src/events.js';
import { WorkerPool } from '../../src/runtime/worker-pool.js';
import { defer, eventually, tempStore } from './helpers.js';

/** The real store with its readyInboxes calls counted: how a spinning pool would show. */
function counted(store: Store): { store: Store; calls: () => number } {
  let calls = 0;
  const wrapper: Store = {
    leaseTtlMs: store.leaseTtlMs,
    events: store.events,
    inbox: (id) => store.inbox(id),
    view: (id) => store.view(id),
    inboxes: () => store.inboxes(),
    readyInboxes: (options) => {
      calls += 1;
      return store.readyInboxes(options);
    },
    listInboxes: (query) => store.listInboxes(query),
    dispatchableInboxes: (options) => store.dispatchableInboxes(options),
    nextWake: () => store.nextWake(),
    probeWrites: () => store.probeWrites(),
    subscribe: (listener) => store.subscribe(listener),
    endSession: (sessionId, expiresAt) => store.endSession(sessionId, expiresAt),
    sessionEnded: (sessionId) => store.sessionEnded(sessionId),
    prune: (options) => store.prune(options),
    exportInbox: (id) => store.exportInbox(id),
    deleteInbox: (id) => store.deleteInbox(id),
    importInbox: (id, records) => store.importInbox(id, records),
    close: () => store.close(),
    [Symbol.asyncDispose]: () => store[Symbol.asyncDispose](),
  };
  return { store: wrapper, calls: () => calls };
}

const INBOXES = 10;
const EVENTS_PER_INBOX = 5;

describe.each([
  { name: 'two store objects on one directory (two processes)', separate: true },
  { name: 'one store object shared by two pools', separate: false },
])('two pools: $name', ({ separate }) => {
  it('never run the same inbox at once, run every event exactly once, and do not spin when idle', async () => {
    const { store: first, reopen } = await tempStore();
    const second = separate ? await reopen() : first;
    const active = new Map<string, number>();
    let overlaps = 0;
    const agent = defineAgent({
      async run(ctx) {
        const now = (active.get(ctx.inboxId) ?? 0) + 1;
        active.set(ctx.inboxId, now);
        if (now > 1) overlaps += 1;
        await sleep(Math.floor(Math.random() * 4));
        active.set(ctx.inboxId, (active.get(ctx.inboxId) ?? 1) - 1);
        return { messages: ctx.events.map((e) => `ok ${e.sourceId}`) };
      },
    });
    const done = new Map<string, number>();
    const runsByPool = [0, 0];
    const stores = [counted(first), counted(second)];
    // The safety poll is off: hints, completions and the armed timer must be enough.
    for (const [i, { store }] of stores.entries()) {
      const events = new RuntimeEvents();
      events.on('run:finished', (p) => {
        if (p.outcome !== 'messages') return;
        runsByPool[i]! += 1;
        for (const id of p.eventIds) done.set(`${p.inboxId}#${id}`, (done.get(`${p.inboxId}#${id}`) ?? 0) + 1);
      });
      const pool = new WorkerPool({ store, agent, events, holder: `pool-${i}`, concurrency: 3, pollIntervalMs: 2 ** 31 - 1 });
      await pool.start();
      defer(() => pool.stop({ graceMs: 0 }));
    }

    // Deliveries alternate between the two stores, as a load balancer would spread them.
    const ingests: Promise<boolean>[] = [];
    for (let n = 0; n < EVENTS_PER_INBOX; n++) {
      for (let i = 0; i < INBOXES; i++) {
        const via = (i + n) % 2 === 0 ? first : second;
        ingests.push(via.inbox(`user-${i}`).ingest({ source: 'chat', sourceId: `m${n}` }));
      }
    }
    expect(await Promise.all(ingests)).toEqual(ingests.map(() => true));

    await eventually(async () => {
      for (let i = 0; i < INBOXES; i++) if ((await first.inbox(`user-${i}`).stats()).events.done !== EVENTS_PER_INBOX) return false;
      return true;
    }, 'every event is done');
    expect(overlaps).toBe(0);
    expect(done.size).toBe(INBOXES * EVENTS_PER_INBOX);
    expect(runsByPool.every((runs) => runs > 0)).toBe(true); // the work was shared
    expect([...done.values()].every((count) => count === 1)).toBe(true);
    for (let i = 0; i < INBOXES; i++) expect((await first.inbox(`user-${i}`).stats()).outbox.held).toBe(EVENTS_PER_INBOX);

    // Idle: nothing is due, so a pool asks again only when a cool-down (at most
    // a second, one per pool) runs out. A spinning pool would ask thousands of times.
    const before = stores.map((s) => s.calls());
    await sleep(300);
    const idleCalls = stores.map((s, i) => s.calls() - before[i]!);
    expect(idleCalls.every((calls) => calls <= 2)).toBe(true);
  });
});
