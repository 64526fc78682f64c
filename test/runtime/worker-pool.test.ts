import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineAgent, type AgentContext, type AgentResult } from '../../src/agent/agent.js';
import { idempotencyKeyFor } from '../../src/agent/idempotency-key.js';
import { createFakeClock, type Store } from '../../src/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { observe } from '../../src/observability/observe.js';
import { RunAbortedError } from '../../src/runtime/run-abort.js';
import { RuntimeEvents } from '../../src/events.js';
import { WorkerPool, type WorkerPoolOptions } from '../../src/runtime/worker-pool.js';
import { defer, eventually, gate, nextEvent, tempStore } from './helpers.js';
import { jsonLog } from '../fixtures/json-log.js';

/** A started pool that is stopped after the test. The safety poll is off unless asked for. */
async function startPool(store: Store, run: (ctx: AgentContext) => Promise<AgentResult>, options: Partial<WorkerPoolOptions> & { metrics?: Metrics } = {}) {
  const { metrics = createMetrics({ defaultMetrics: false }), ...rest } = options;
  const events = rest.events ?? store.events;
  defer(observe(events, { metrics }));
  const pool = new WorkerPool({ store, agent: defineAgent({ run }), events, pollIntervalMs: 1e9, ...rest });
  await pool.start();
  defer(() => pool.stop({ graceMs: 0 }));
  return { pool, events, metrics };
}

async function counter(metrics: Metrics, name: keyof Metrics, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics[name] as { get(): Promise<{ values: { value: number; labels: Record<string, unknown> }[] }> };
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

/** The store as the pool sees it, recording each lease, claim and finish call it makes, in order. */
function recordingRunCalls(store: Store): { store: Store; calls: string[] } {
  const calls: string[] = [];
  const watched = new Set(['acquire', 'release', 'claimBatch', 'finish', 'acquireAndClaim', 'finishAndClaim']);
  const wrapped = new Proxy(store, {
    get(target, property) {
      if (property !== 'inbox') {
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return (id: string) =>
        new Proxy(target.inbox(id), {
          get(inbox, name) {
            const value: unknown = Reflect.get(inbox, name, inbox);
            if (typeof value !== 'function') return value;
            return (...args: unknown[]) => {
              if (typeof name === 'string' && watched.has(name)) calls.push(`${id} ${name}`);
              return (value as (...a: unknown[]) => unknown).apply(inbox, args);
            };
          },
        });
    },
  });
  return { store: wrapped, calls };
}

describe('worker pool', () => {
  it('runs an agent end to end: event in, run, messages queued in the outbox, event done', async () => {
    const { store } = await tempStore();
    const { events, metrics } = await startPool(store, async (ctx) => ({
      messages: ctx.events.map((e) => `echo: ${(e.payload as { text: string }).text}`),
    }));
    const finished = nextEvent(events, 'run:finished', (p) => p.inboxId === 'alice');
    await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'hello' } });

    const run = await finished;
    expect(run.outcome).toBe('messages');
    expect(run.eventIds).toHaveLength(1);
    const stats = await store.inbox('alice').stats();
    expect(stats.events).toMatchObject({ done: 1, pending: 0, running: 0 });
    expect(stats.outbox.held).toBe(1);
    expect(await counter(metrics, 'runs', { outcome: 'messages' })).toBe(1);
  });

  it('finishes { nothing: true } with no messages', async () => {
    const { store } = await tempStore();
    const { events } = await startPool(store, async () => ({ nothing: true }));
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('bob').ingest({ source: 'chat', sourceId: 'm1' });

    expect((await finished).outcome).toBe('nothing');
    const stats = await store.inbox('bob').stats();
    expect(stats.events.done).toBe(1);
    expect(stats.outbox.held).toBe(0);
  });

  it('claims again until the inbox is empty: events arriving during a run are run before the lease is released', async () => {
    const { store } = await tempStore();
    const first = gate();
    const seen: string[][] = [];
    const { events } = await startPool(store, async (ctx) => {
      seen.push(ctx.events.map((e) => e.sourceId));
      if (seen.length === 1) await first.promise;
      return { nothing: true };
    });
    const started = nextEvent(events, 'run:started');
    const inbox = store.inbox('carol');
    await inbox.ingest({ source: 'chat', sourceId: 'a' });
    await started;
    const second = nextEvent(events, 'run:finished', (p) => p.eventIds.length === 2);
    await inbox.ingest({ source: 'chat', sourceId: 'b' });
    await inbox.ingest({ source: 'chat', sourceId: 'c' });
    first.open();
    await second;
    expect(seen).toEqual([['a'], ['b', 'c']]);
  });

  it('a run of one batch is two store calls: acquireAndClaim, then finishAndClaim, which releases the lease', async () => {
    const { store } = await tempStore();
    const { store: watched, calls } = recordingRunCalls(store);
    const { events } = await startPool(watched, async () => ({ nothing: true }));
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('erin').ingest({ source: 'chat', sourceId: 'm1' });
    await finished;
    expect(await store.inbox('erin').acquire('next-process')).not.toBeNull(); // released by the finish's call
    expect(calls).toEqual(['erin acquireAndClaim', 'erin finishAndClaim']);
  });

  it('retries a throwing agent with the store backoff, then parks the event as dead', async () => {
    const { store } = await tempStore({ maxAttempts: 2, retryBackoff: { baseMs: 20, maxMs: 20 } });
    const attempts: number[] = [];
    const { events, metrics } = await startPool(store, async (ctx) => {
      attempts.push(ctx.events[0]!.attempts);
      throw new Error('boom');
    });
    const failures: string[] = [];
    events.on('run:finished', (p) => failures.push(`${p.outcome}: ${p.error}`));
    const inbox = store.inbox('dave');
    await inbox.ingest({ source: 'chat', sourceId: 'poison' });

    await eventually(async () => (await inbox.events({ status: 'dead' })).length === 1, 'the event is dead');
    expect(attempts).toEqual([1, 2]);
    expect(failures).toEqual(['error: boom', 'error: boom']);
    const [dead] = await inbox.events({ status: 'dead' });
    expect(dead!.lastError).toBe('boom');
    await eventually(async () => (await counter(metrics, 'deadEvents')) === 1, 'the dead event is counted');
    expect(await counter(metrics, 'runs', { outcome: 'error' })).toBe(2);
  });

  it('aborts a run that exceeds runTimeoutMs through its signal, and the event is retried', async () => {
    const { store } = await tempStore({ retryBackoff: { baseMs: 10, maxMs: 10 } });
    const signals: AbortSignal[] = [];
    const { events } = await startPool(
      store,
      async (ctx) => {
        signals.push(ctx.signal);
        if (signals.length === 1) await new Promise(() => undefined); // hangs, and ignores its signal
        return { messages: ['second try'] };
      },
      { runTimeoutMs: 100 },
    );
    const timedOut = nextEvent(events, 'run:finished', (p) => p.outcome === 'timeout');
    const succeeded = nextEvent(events, 'run:finished', (p) => p.outcome === 'messages');
    const inbox = store.inbox('erin');
    await inbox.ingest({ source: 'chat', sourceId: 'slow' });

    expect((await timedOut).error).toBe('run timed out after 100 ms');
    expect(signals[0]!.aborted).toBe(true);
    expect((signals[0]!.reason as RunAbortedError).reason).toBe('timeout');
    await succeeded;
    const row = await inbox.getEvent('chat', 'slow');
    expect(row).toMatchObject({ status: 'done', attempts: 2 });
    expect((await inbox.stats()).outbox.held).toBe(1);
  });

  it('turns an invalid agent result into an error, never a crashed worker', async () => {
    const { store } = await tempStore();
    const { events } = await startPool(store, async () => ({ messages: [''] }));
    const finished = nextEvent(events, 'run:finished');
    await store.inbox('frank').ingest({ source: 'chat', sourceId: 'x' });
    const run = await finished;
    expect(run.outcome).toBe('error');
    expect(run.error).toMatch(/non-empty string body/);
    expect((await store.inbox('frank').getEvent('chat', 'x'))!.status).toBe('pending');
  });

  it('gives the agent its context: idempotency key, approval with a link, timers, stats', async () => {
    const { store } = await tempStore();
    const seen: { key: string; link: string | null; payload: unknown }[] = [];
    const { events } = await startPool(
      store,
      async (ctx) => {
        const event = ctx.events[0]!;
        if (event.source === 'chat') {
          const { link } = await ctx.requestApproval({ id: 'refund-1', expiresInMs: 60_000, action: { refund: 5 } });
          await ctx.addTimer({ id: 'later', due: ctx.now + 3_600_000 });
          seen.push({ key: ctx.idempotencyKey('refund'), link, payload: event.payload });
          // Asked with the run's finish: not in the store while the run is still going.
          expect((await ctx.stats()).approvalsPending).toBe(0);
          return { nothing: true };
        }
        seen.push({ key: ctx.idempotencyKey('refund'), link: null, payload: event.payload });
        return { messages: ['refunded'] };
      },
      { approvalLink: (l) => `https://vigil.test/a/${l.inboxId}/${l.approvalId}?exp=${l.expiresAt}` },
    );
    const inbox = store.inbox('gina');
    const asked = nextEvent(events, 'run:finished');
    await inbox.ingest({ source: 'chat', sourceId: 'refund please' });
    await asked;
    const claimed = (await inbox.events())[0]!;
    expect(seen[0]!.key).toBe(idempotencyKeyFor('gina', [claimed], 'refund'));
    expect(seen[0]!.link).toMatch(/^https:\/\/vigil\.test\/a\/gina\/refund-1\?exp=\d+$/);
    expect((await inbox.timers()).map((t) => t.id)).toContain('later');
    expect((await inbox.stats()).approvalsPending).toBe(1);

    const answered = nextEvent(events, 'run:finished', (p) => p.outcome === 'messages');
    expect(await inbox.answerApproval('refund-1', 'yes')).toBe('yes');
    await answered;
    expect(seen[1]!.payload).toMatchObject({ approval: 'refund-1', answer: 'yes', action: { refund: 5 } });
  });

  it('fires a due timer from the one armed timer, with the safety poll off', async () => {
    const { store } = await tempStore();
    const { events } = await startPool(store, async (ctx) => ({ messages: ctx.events.map((e) => `tick ${e.sourceId}`) }), {
      pollIntervalMs: 2 ** 31 - 1,
    });
    const fired = nextEvent(events, 'scheduler:fired');
    const finished = nextEvent(events, 'run:finished');
    const inbox = store.inbox('hank');
    await inbox.addTimer({ id: 'soon', due: Date.now() + 100 });

    expect(await fired).toEqual({ inboxId: 'hank', due: 1 });
    const run = await finished;
    expect(run.outcome).toBe('messages');
    const [event] = await inbox.events();
    expect(event!.source).toBe('timer');
    expect(event!.sourceId).toMatch(/^soon@\d+$/);
  });
});

describe('worker pool: the lease', () => {
  /**
   * A run held open while the store's clock moves `steps` times by 600 ms:
   * after each, the pool's heartbeat must have renewed the lease to reach
   * now + leaseTtlMs. `poolOptions` as the pool is built.
   */
  async function expectHeartbeatRenews(leaseTtlMs: number, steps: number, poolOptions: Partial<WorkerPoolOptions>): Promise<void> {
    const clock = createFakeClock(1_700_000_000_000);
    const { store } = await tempStore({ clock: clock.now, leaseTtlMs });
    const release = gate();
    const { events } = await startPool(
      store,
      async () => {
        await release.promise;
        return { messages: ['done at last'] };
      },
      poolOptions,
    );
    const started = nextEvent(events, 'run:started');
    const inbox = store.inbox('ivy');
    await inbox.ingest({ source: 'chat', sourceId: 'long' });
    await started;
    for (let step = 0; step < steps; step++) {
      clock.advance(600);
      const mustReach = clock.now() + leaseTtlMs;
      await eventually(async () => ((await inbox.stats()).lease?.until ?? 0) >= mustReach, 'the heartbeat renewed the lease');
    }
    const finished = nextEvent(events, 'run:finished');
    release.open();
    expect((await finished).outcome).toBe('messages');
  }

  it('renews the lease on a heartbeat while a long step runs', async () => {
    // 600 ms of store time per step, 1,800 in all: far past one leaseTtlMs.
    await expectHeartbeatRenews(1_000, 3, { leaseTtlMs: 1_000, heartbeatMs: 10 });
  });

  it("renews within the store's lease without being told it (every leaseTtlMs / 3): a 900 ms lease is renewed before it lapses", async () => {
    // The default heartbeat (leaseTtlMs / 3) comes round within a second of real time.
    await expectHeartbeatRenews(900, 1, {});
  });

  it("a leaseTtlMs other than the store's is invalid_options: the heartbeat must follow the store's leases", async () => {
    const { store } = await tempStore({ leaseTtlMs: 10_000 });
    const agent = defineAgent({ run: async () => ({ nothing: true }) });
    expect(() => new WorkerPool({ store, agent, events: new RuntimeEvents(), leaseTtlMs: 120_000 })).toThrow(
      expect.objectContaining({ code: 'invalid_options', message: "worker pool: leaseTtlMs (120000) is not the store's (10000); leave it out, it is read from the store" }),
    );
  });

  it('aborts the agent when another holder takes the lease over, and refuses its finish', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const { store } = await tempStore({ clock: clock.now, leaseTtlMs: 1_000 });
    const started = gate<AbortSignal>();
    const { events, metrics } = await startPool(
      store,
      async (ctx) => {
        started.open(ctx.signal);
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return { messages: ['too late'] };
      },
      { leaseTtlMs: 1_000, heartbeatMs: 10 },
    );
    const inbox = store.inbox('jack');
    await inbox.ingest({ source: 'chat', sourceId: 'e1' });
    const signal = await started.promise;
    const lost = nextEvent(events, 'lease:lost');
    const finished = nextEvent(events, 'run:finished');

    clock.advance(1_500); // the pool's lease lapses (no heartbeat can run between these two lines)
    expect(await inbox.acquire('intruder')).toBe(2);

    expect(await lost).toEqual({ inboxId: 'jack', gen: 1 });
    expect(signal.aborted).toBe(true);
    expect((signal.reason as RunAbortedError).reason).toBe('lease-lost');
    expect((await finished).outcome).toBe('refused');
    expect((await inbox.stats()).outbox.held).toBe(0);
    expect(await counter(metrics, 'leaseLost')).toBe(1);
    // The event is the new holder's to run again.
    const reclaimed = await inbox.claimBatch('intruder', 2);
    expect(reclaimed.map((e) => [e.sourceId, e.attempts])).toEqual([['e1', 2]]);
  });

  it('refuses the finish of a run whose lease was taken while no heartbeat watched', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const { store } = await tempStore({ clock: clock.now, leaseTtlMs: 1_000 });
    const started = gate();
    const proceed = gate();
    const { events } = await startPool(
      store,
      async () => {
        started.open();
        await proceed.promise;
        return { messages: ['stale reply'] };
      },
      { leaseTtlMs: 1_000, heartbeatMs: false },
    );
    const inbox = store.inbox('kate');
    await inbox.ingest({ source: 'chat', sourceId: 'e1' });
    await started.promise;
    clock.advance(1_500);
    expect(await inbox.acquire('intruder')).toBe(2);
    const lost = nextEvent(events, 'lease:lost');
    const finished = nextEvent(events, 'run:finished');
    proceed.open();

    expect((await finished).outcome).toBe('refused');
    await lost;
    expect((await inbox.stats()).outbox.held).toBe(0); // the stale reply was never queued (R3)
  });

  it('takes over an inbox whose worker stalled, and counts the takeover', async () => {
    const clock = createFakeClock(1_700_000_000_000);
    const { store } = await tempStore({ clock: clock.now, leaseTtlMs: 1_000 });
    const inbox = store.inbox('liam');
    await inbox.ingest({ source: 'chat', sourceId: 'e1' });
    const crashed = await inbox.acquire('crashed-worker');
    await inbox.claimBatch('crashed-worker', crashed!);
    clock.advance(1_500);

    const events = store.events;
    const acquired = nextEvent(events, 'lease:acquired');
    const finished = nextEvent(events, 'run:finished');
    // No hint: the pool's first look at readyInboxes finds the lapsed lease.
    const { metrics } = await startPool(store, async () => ({ nothing: true }), { events, leaseTtlMs: 1_000 });
    expect(await acquired).toMatchObject({ inboxId: 'liam', takeover: true });
    expect((await finished).outcome).toBe('nothing');
    expect(await counter(metrics, 'leaseTakeovers')).toBe(1);
  });
});

describe('worker pool: stop()', () => {
  it('lets a running run finish within the grace period, claims nothing more, and releases the lease', async () => {
    const { store } = await tempStore();
    const proceed = gate();
    const { pool, events } = await startPool(store, async (ctx) => {
      await proceed.promise;
      return { messages: [`done ${ctx.events.length}`] };
    });
    const started = nextEvent(events, 'run:started');
    const inbox = store.inbox('mia');
    await inbox.ingest({ source: 'chat', sourceId: 'first' });
    await started;

    const stopped = pool.stop({ graceMs: 30_000 });
    await inbox.ingest({ source: 'chat', sourceId: 'after stop' });
    const finished = nextEvent(events, 'run:finished');
    proceed.open();
    expect((await finished).outcome).toBe('messages');
    await stopped;

    expect((await inbox.getEvent('chat', 'first'))!.status).toBe('done');
    expect((await inbox.getEvent('chat', 'after stop'))!.status).toBe('pending');
    expect(await inbox.acquire('next-process')).not.toBeNull(); // released, not left to lapse
    expect(pool.active).toEqual([]);
  });

  it('aborts a run that outlasts the grace period, records an error for a retry, and releases the lease', async () => {
    const { store } = await tempStore();
    const started = gate<AbortSignal>();
    const { pool, events } = await startPool(store, async (ctx) => {
      started.open(ctx.signal);
      return new Promise(() => undefined); // never ends, ignores its signal
    });
    const inbox = store.inbox('noah');
    await inbox.ingest({ source: 'chat', sourceId: 'stuck' });
    const signal = await started.promise;
    const finished = nextEvent(events, 'run:finished');

    await pool.stop({ graceMs: 50 });
    const run = await finished;
    expect(run.outcome).toBe('error');
    expect(run.error).toMatch(/shut down/);
    expect((signal.reason as RunAbortedError).reason).toBe('shutdown');
    expect(await inbox.getEvent('chat', 'stuck')).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await inbox.acquire('next-process')).not.toBeNull();
  });
});

describe('worker pool: an inbox whose turns fail', () => {
  it('is retried with a doubling, capped wait, one error line per incident, and a line with the count when it works again', async () => {
    const { store: first, dir, reopen } = await tempStore();
    await first.inbox('broken').ingest({ source: 'chat', sourceId: 'm1' });
    await first.inbox('fine').ingest({ source: 'chat', sourceId: 'm1' });
    await first.close();
    // The ready index still lists it; its file is garbage now (a disk fault, a bad restore).
    for (const suffix of ['-wal', '-shm']) rmSync(join(dir, `broken.db${suffix}`), { force: true });
    writeFileSync(join(dir, 'broken.db'), 'this is not a SQLite database, just text long enough to be read as a header. '.repeat(20));
    const store = await reopen();
    const { lines, destination } = jsonLog();
    const { pool, events } = await startPool(store, async () => ({ nothing: true }), {
      logger: createLogger({ level: 'debug', destination }),
      failureBackoff: { baseMs: 40, maxMs: 320 },
      pollIntervalMs: 50,
    });
    const fine = nextEvent(events, 'run:finished', (p) => p.inboxId === 'fine');
    pool.wake();
    await fine; // the other inbox runs meanwhile
    const failures = () => lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('worker: ') && l.inboxId === 'broken' && l.msg.includes('failed'));
    await eventually(async () => failures().length >= 6, 'six failed turns of the broken inbox');
    const seen = failures();
    expect(seen.filter((l) => l.level === 50)).toHaveLength(1);
    expect(seen[0]).toMatchObject({ level: 50, retryInMs: 40, err: expect.objectContaining({ message: expect.stringContaining('not a SQLite database') }) });
    expect(seen.slice(1, 6).map((l) => [l.level, l.failures, l.retryInMs])).toEqual([
      [20, 2, 80],
      [20, 3, 160],
      [20, 4, 320],
      [20, 5, 320],
      [20, 6, 320],
    ]);
    expect(pool.failingInboxes.get('broken')).toBeGreaterThanOrEqual(6);

    // The file is put right (here: removed, so the next turn starts it afresh): one line says how many turns failed.
    rmSync(join(dir, 'broken.db'));
    await eventually(async () => lines.some((l) => l.msg === `worker: the inbox works again after ${l.failures as number} failed turns` && l.inboxId === 'broken'), 'the line saying it works again');
    expect(pool.failingInboxes.has('broken')).toBe(false);
  });
});
