/**
 * The testing kit's crash points on SQLite, each with the failure scenario
 * it lets a user write for their own agent: the worker dies at the point,
 * the fake clock passes the lease, another worker (or dispatcher) goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineAgent, type AgentContext } from '../../src/index.js';
import {
  crashingStore,
  isSimulatedCrash,
  runOnce,
  SimulatedCrash,
  throwawayStore,
  type ThrowawayStore,
} from '../../src/testing/index.js';

const LEASE_TTL = 30_000;
const opened: ThrowawayStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((kit) => kit.close()));
});

async function kit(): Promise<ThrowawayStore> {
  const made = await throwawayStore({ leaseTtlMs: LEASE_TTL, retryBackoff: { baseMs: 0 } });
  opened.push(made);
  return made;
}

/** An agent whose side effect (a refund) is keyed by ctx.idempotencyKey, as a real API would be. */
function refundAgent() {
  const calls: string[] = [];
  const refunds = new Set<string>();
  const agent = defineAgent({
    name: 'refunds',
    async run(ctx: AgentContext) {
      for (const event of ctx.events) {
        const key = ctx.idempotencyKey('refund', event);
        calls.push(key);
        refunds.add(key); // the payment API applies a key once
      }
      return { messages: [`refunded ${ctx.events.map((e) => e.sourceId).join(', ')}`] };
    },
  });
  return { agent, calls, refunds };
}

describe('after-claim', () => {
  it('counts the attempt; the event runs again once the lease lapses', async () => {
    const { store, clock } = await kit();
    const { agent, calls } = refundAgent();
    await store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-1' });

    const crashing = crashingStore(store, { at: 'after-claim' });
    const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock });
    expect(a.outcome).toBe('crashed');
    expect(a.crash).toBeInstanceOf(SimulatedCrash);
    expect(a.crash?.point).toBe('after-claim');
    expect(a.claimed.map((batch) => batch.map((e) => e.sourceId))).toEqual([['order-1']]);
    expect(calls).toEqual([]); // the agent never saw it
    expect(await store.inbox('shop').getEvent('chat', 'order-1')).toMatchObject({ status: 'running', attempts: 1 });
    // Dead: the lease was not released.
    expect((await store.inbox('shop').stats()).lease).toMatchObject({ holder: 'A', gen: 1 });

    expect((await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock })).outcome).toBe('busy');
    clock.advance(LEASE_TTL + 1);
    const b = await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock });
    expect(b.outcome).toBe('worked');
    expect(b.runs.map((run) => run.outcome)).toEqual(['messages']);
    expect(calls).toHaveLength(1);
    expect(await store.inbox('shop').getEvent('chat', 'order-1')).toMatchObject({ status: 'done', attempts: 2 });
    expect((await store.inbox('shop').stats()).outbox.held).toBe(1);
  });

  it('with times: Infinity and a poison event, the event is dead after maxAttempts and its neighbour is done', async () => {
    const { store, clock } = await kit();
    const { agent } = refundAgent();
    const inbox = store.inbox('shop');
    await inbox.ingest({ source: 'chat', sourceId: 'poison' });
    await inbox.ingest({ source: 'chat', sourceId: 'healthy' });
    const crashing = crashingStore(store, { at: 'after-claim', times: Infinity, when: (site) => site.events.some((e) => e.sourceId === 'poison') });
    const turns: string[] = [];
    for (let n = 0; n < 5; n++) {
      const turn = await runOnce({ store: crashing, inbox: 'shop', agent, holder: `W${n}`, clock });
      turns.push(`${turn.outcome} ${turn.claimed.flat().map((e) => e.sourceId).join('+')}`);
      clock.advance(LEASE_TTL + 1);
    }
    expect(turns).toEqual(['crashed poison+healthy', 'crashed poison', 'crashed poison', 'worked healthy', 'idle ']);
    expect(crashing.crashes).toHaveLength(3);
    expect(await inbox.getEvent('chat', 'poison')).toMatchObject({ status: 'dead', attempts: 3 });
    expect(await inbox.getEvent('chat', 'healthy')).toMatchObject({ status: 'done', attempts: 2 });
  });
});

describe('before-finish', () => {
  it('the agent ran but no reply was queued; the retry queues exactly one, and the keyed side effect happened once', async () => {
    const { store, clock } = await kit();
    const { agent, calls, refunds } = refundAgent();
    const inbox = store.inbox('shop');
    await inbox.ingest({ source: 'chat', sourceId: 'order-7' });

    const crashing = crashingStore(store, { at: 'before-finish', inbox: 'shop' });
    const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock });
    expect(a.outcome).toBe('crashed');
    expect(a.crash?.events.map((e) => e.sourceId)).toEqual(['order-7']);
    expect(a.runs).toEqual([]); // the run never finished
    expect(calls).toHaveLength(1); // the side effect did happen
    expect((await inbox.stats()).outbox).toEqual({ held: 0, sent: 0, undeliverable: 0, rejected: 0 });
    expect(await inbox.getEvent('chat', 'order-7')).toMatchObject({ status: 'running', attempts: 1 });

    clock.advance(LEASE_TTL + 1);
    const b = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'B', clock });
    expect(b.outcome).toBe('worked');
    expect(calls).toHaveLength(2); // the agent ran twice...
    expect(refunds.size).toBe(1); // ...with the same key: one refund
    expect((await inbox.stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });
    expect(await inbox.getEvent('chat', 'order-7')).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('a dead worker stays dead: its finish, release and acquire never reach the store', async () => {
    const { store, clock } = await kit();
    const inbox = store.inbox('shop');
    await inbox.ingest({ source: 'chat', sourceId: 'x' });
    const crashing = crashingStore(store, { at: 'before-finish', holder: 'A' });
    const dead = crashing.inbox('shop');
    const gen = (await dead.acquire('A'))!;
    const batch = await dead.claimBatch('A', gen);
    await expect(dead.finish('A', gen, batch.map((e) => e.id))).rejects.toThrow(SimulatedCrash);
    expect(crashing.isDead('shop', 'A')).toBe(true);
    await expect(dead.release('A', gen)).rejects.toThrow(/is dead/);
    await expect(dead.acquire('A')).rejects.toSatisfy(isSimulatedCrash);
    expect((await inbox.stats()).lease).toMatchObject({ holder: 'A', gen });
    // Another worker is not affected, and times: 1 is spent.
    clock.advance(LEASE_TTL + 1);
    const genB = (await crashing.inbox('shop').acquire('B'))!;
    const again = await crashing.inbox('shop').claimBatch('B', genB);
    expect(await crashing.inbox('shop').finish('B', genB, again.map((e) => e.id))).toBe(true);
  });

  it('crashes only in the inbox and holder it names', async () => {
    const { store, clock } = await kit();
    const { agent, calls } = refundAgent();
    for (const id of ['one', 'two']) await store.inbox(id).ingest({ source: 'chat', sourceId: `order-${id}` });
    const crashing = crashingStore(store, { at: 'before-finish', inbox: 'two', holder: 'A' });
    expect((await runOnce({ store: crashing, inbox: 'one', agent, holder: 'A', clock })).outcome).toBe('worked');
    expect((await runOnce({ store: crashing, inbox: 'two', agent, holder: 'A', clock })).outcome).toBe('crashed');
    expect(calls).toHaveLength(2);
    expect(crashing.crashes.map((crash) => [crash.inboxId, crash.holder])).toEqual([['two', 'A']]);
  });
});

describe('after-acquire', () => {
  it('the lease is taken and never used: nothing is claimed, and another worker runs the event once it lapses', async () => {
    const { store, clock } = await kit();
    const { agent, calls } = refundAgent();
    await store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-2' });
    const crashing = crashingStore(store, { at: 'after-acquire' });
    const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock });
    expect([a.outcome, a.crash?.point, a.claimed]).toEqual(['crashed', 'after-acquire', []]);
    expect(await store.inbox('shop').getEvent('chat', 'order-2')).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock })).outcome).toBe('busy');
    clock.advance(LEASE_TTL + 1);
    expect((await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock })).outcome).toBe('worked');
    expect(calls).toHaveLength(1);
    expect(await store.inbox('shop').getEvent('chat', 'order-2')).toMatchObject({ status: 'done', attempts: 1 });
  });
});

describe('in-finish', () => {
  it('the finish is cut off before its COMMIT: none of it stays (no reply, no memory, events still running), and the retry finishes once', async () => {
    const { store, clock } = await kit();
    const calls: string[] = [];
    const agent = defineAgent({
      async run(ctx) {
        calls.push(ctx.events[0]!.sourceId);
        await ctx.memory.set('seen', calls.length);
        return { messages: ['done'] };
      },
    });
    await store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-3' });
    const crashing = crashingStore(store, { at: 'in-finish' });
    const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock });
    expect([a.outcome, a.crash?.point, a.crash?.eventIds.length]).toEqual(['crashed', 'in-finish', 1]);
    const inbox = store.inbox('shop');
    expect(await inbox.getEvent('chat', 'order-3')).toMatchObject({ status: 'running', attempts: 1 });
    expect((await inbox.stats()).outbox.held).toBe(0);
    expect(await inbox.getMemory()).toEqual({});
    clock.advance(LEASE_TTL + 1);
    expect((await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock })).outcome).toBe('worked');
    expect(await inbox.getMemory()).toEqual({ seen: 2 });
    expect((await inbox.stats()).outbox.held).toBe(1);
  });
});

describe('after-finish', () => {
  it('the finish committed and the worker never heard: the reply is queued once and the event is not run again', async () => {
    const { store, clock } = await kit();
    const { agent, calls } = refundAgent();
    await store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-4' });
    const crashing = crashingStore(store, { at: 'after-finish' });
    const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock });
    expect([a.outcome, a.crash?.point]).toEqual(['crashed', 'after-finish']);
    expect(await store.inbox('shop').getEvent('chat', 'order-4')).toMatchObject({ status: 'done' });
    clock.advance(LEASE_TTL + 1);
    expect((await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock })).outcome).toBe('idle');
    expect(calls).toHaveLength(1);
    expect((await store.inbox('shop').stats()).outbox.held).toBe(1);
  });
});

describe('before-release', () => {
  it('the turn is over but the lease is never released: the next worker waits it out, and finds nothing left to do', async () => {
    const { store, clock } = await kit();
    const { agent, calls } = refundAgent();
    await store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-5' });
    const crashing = crashingStore(store, { at: 'before-release' });
    const a = await runOnce({ store: crashing, inbox: 'shop', agent, holder: 'A', clock });
    expect([a.outcome, a.crash?.point]).toEqual(['crashed', 'before-release']);
    expect((await store.inbox('shop').stats()).lease).toMatchObject({ holder: 'A', gen: 1 });
    await store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-6' });
    expect((await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock })).outcome).toBe('busy');
    clock.advance(LEASE_TTL + 1);
    expect((await runOnce({ store, inbox: 'shop', agent, holder: 'B', clock })).outcome).toBe('worked');
    expect(calls).toHaveLength(2);
  });
});

describe('in-dispatch', () => {
  it('the reservation is cut off before its COMMIT: nothing is sent or reserved, and the next dispatch sends the batch once', async () => {
    const made = await kit();
    const { store } = made;
    const { agent } = refundAgent();
    await store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-8' });
    await runOnce({ store, inbox: 'shop', agent, holder: 'A', clock: made.clock });
    const sent: string[] = [];
    const crashing = crashingStore(store, { at: 'in-dispatch' });
    const crash = await crashing.inbox('shop').dispatch((body) => void sent.push(body)).catch((error: unknown) => error);
    expect(isSimulatedCrash(crash) && [crash.point, crash.messages.map((m) => m.body)]).toEqual(['in-dispatch', ['refunded order-8']]);
    expect(sent).toEqual([]);
    expect(await store.inbox('shop').dispatch((body) => void sent.push(body))).toBe(1); // not reserved: no lease to wait out
    expect(sent).toEqual(['refunded order-8']);
  });
});

describe('between-send-and-record', () => {
  async function withReply(made: ThrowawayStore): Promise<void> {
    const { agent } = refundAgent();
    await made.store.inbox('shop').ingest({ source: 'chat', sourceId: 'order-9' });
    expect((await runOnce({ store: made.store, inbox: 'shop', agent, holder: 'A', clock: made.clock })).outcome).toBe('worked');
  }

  it('the message went out but was not recorded: a second dispatcher after leaseTtl sends it again (at least once)', async () => {
    const made = await kit();
    const { store, clock } = made;
    await withReply(made);
    const sent: string[] = [];
    const crashing = crashingStore(store, { at: 'between-send-and-record' });

    const crash = await crashing.inbox('shop').dispatch((body) => void sent.push(body)).catch((error: unknown) => error);
    expect(isSimulatedCrash(crash)).toBe(true);
    expect((crash as SimulatedCrash).messages.map((m) => m.body)).toEqual(['refunded order-9']);
    expect(sent).toEqual(['refunded order-9']);
    expect((await store.inbox('shop').stats()).outbox).toEqual({ held: 1, sent: 0, undeliverable: 0, rejected: 0 });

    // Still reserved by the dead dispatcher: nobody sends it yet.
    expect(await store.inbox('shop').dispatch((body) => void sent.push(body))).toBe(0);
    clock.advance(LEASE_TTL + 1);
    expect(await store.inbox('shop').dispatch((body) => void sent.push(body))).toBe(1);
    expect(sent).toEqual(['refunded order-9', 'refunded order-9']);
    expect((await store.inbox('shop').stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  });

  it('with atMostOnce the batch is recorded before the send: there is no moment between send and record to die in, and it goes once', async () => {
    const made = await kit();
    const { store, clock } = made;
    await withReply(made);
    const sent: string[] = [];
    const crashing = crashingStore(store, { at: 'between-send-and-record' });

    expect(await crashing.inbox('shop').dispatch((body) => void sent.push(body), { atMostOnce: true })).toBe(1);
    expect(crashing.crashes).toEqual([]);
    clock.advance(LEASE_TTL + 1);
    expect(await store.inbox('shop').dispatch((body) => void sent.push(body), { atMostOnce: true })).toBe(0);
    expect(sent).toEqual(['refunded order-9']);
    expect((await store.inbox('shop').stats()).outbox).toEqual({ held: 0, sent: 1, undeliverable: 0, rejected: 0 });
  });

  it('a send that throws is a failed delivery, not a crash: the message is released for the next try', async () => {
    const made = await kit();
    await withReply(made);
    const crashing = crashingStore(made.store, { at: 'between-send-and-record' });
    await expect(crashing.inbox('shop').dispatch(() => Promise.reject(new Error('channel down')))).rejects.toThrow('channel down');
    expect(crashing.crashes).toHaveLength(0);
    const sent: string[] = [];
    // times: 1 is still due: this send goes out, then the dispatcher dies.
    await expect(crashing.inbox('shop').dispatch((body) => void sent.push(body))).rejects.toThrow(SimulatedCrash);
    expect(sent).toEqual(['refunded order-9']);
  });
});

describe('crashingStore options', () => {
  it('refuses an unknown point or a bad times', async () => {
    const { store } = await kit();
    expect(() => crashingStore(store, { at: 'during-lunch' as never })).toThrow(/crashingStore needs/);
    expect(() => crashingStore(store, { at: 'after-claim', times: -1 })).toThrow(/times/);
    expect(() => crashingStore(store, { at: 'after-claim', times: 0 })).not.toThrow();
  });
});
