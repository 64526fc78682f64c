/**
 * The store's seam for the testing kit (src/store/seam.ts), on each
 * backend: a store over another store's backend with each inbox's verbs
 * intercepted, and those verbs cut off before their COMMIT, which run their
 * whole transaction (their rules decide, as in production) and leave nothing.
 */
import { expect, it } from 'vitest';
import { isVigilError } from '../../src/errors.js';
import type { Store } from '../../src/store/contract.js';
import type { DispatchInput } from '../../src/store/engine/port.js';
import { policyOf } from '../../src/store/engine/dispatch.js';
import { planDispatch, type DispatchDecision } from '../../src/store/outbox-batch.js';
import { interceptPorts, type CutVerbs } from '../../src/store/seam.js';
import type { ThrowawayStore } from '../../src/testing/index.js';

const STORE_GAP_MS = 3_600_000;
const OUTCOME = { error: null, dead: false, messages: [{ body: 'refunded', urgent: false }], session: undefined, memory: { set: [], delete: [] }, approvals: [], usage: null, effects: [], intents: [] };

/** A running claim in inbox 'shop' under holder A: its generation and event ids. */
async function claimed(store: Store): Promise<{ gen: number; ids: number[] }> {
  const inbox = store.inbox('shop');
  await inbox.ingest({ source: 'chat', sourceId: 'order-1' });
  const run = await inbox.acquireAndClaim('A');
  return { gen: run!.gen, ids: run!.events.map((event) => event.id) };
}

export function seamSuite(makeKit: () => Promise<ThrowawayStore>): void {
  it('refuses a Store the engine did not make', () => {
    const handMade = {} as Store;
    let error: unknown;
    try {
      interceptPorts(handMade, () => ({}));
    } catch (caught) {
      error = caught;
    }
    expect(isVigilError(error, 'invalid_options')).toBe(true);
  });

  it('intercepts the verbs it is given and passes every other one through to the same backend', async () => {
    await using kit = await makeKit();
    const acquired: string[] = [];
    const wrapped = interceptPorts(kit.store, (inner) => ({
      acquire: async (holder) => {
        acquired.push(holder);
        return inner.acquire(holder);
      },
    }));
    await wrapped.inbox('shop').ingest({ source: 'chat', sourceId: 'order-1' });
    expect(await wrapped.inbox('shop').acquire('A')).toBe(1);
    expect(acquired).toEqual(['A']);
    expect((await kit.store.inbox('shop').stats()).lease).toMatchObject({ holder: 'A', gen: 1 });
  });

  it('a finish cut before its COMMIT runs its rules (fenced, accepted) and leaves nothing of it', async () => {
    await using kit = await makeKit();
    const { gen, ids } = await claimed(kit.store);
    let cut: CutVerbs | undefined;
    const wrapped = interceptPorts(kit.store, (_inner, verbs) => {
      cut = verbs;
      return {};
    });
    wrapped.inbox('shop');
    // The fence decides inside the transaction: the right generation finishes, a stale one is refused.
    expect(await cut!.finish({ holder: 'A', gen, ids, outcome: OUTCOME, wake: true })).toBe(true);
    expect(await cut!.finish({ holder: 'A', gen: gen + 1, ids, outcome: OUTCOME, wake: true })).toBe(false);
    expect((await cut!.finishAndClaim({ holder: 'A', gen, ids, outcome: OUTCOME, wake: true })).finished).toBe(true);
    const inbox = kit.store.inbox('shop');
    expect(await inbox.getEvent('chat', 'order-1')).toMatchObject({ status: 'running', attempts: 1 });
    expect((await inbox.stats()).outbox.held).toBe(0);
    // The real finish still goes through once.
    expect(await inbox.finish('A', gen, ids, { messages: ['refunded'] })).toBe(true);
    expect((await inbox.stats()).outbox.held).toBe(1);
  });

  it('a reservation cut before its COMMIT plans the batch and reserves nothing', async () => {
    await using kit = await makeKit();
    const { gen, ids } = await claimed(kit.store);
    await kit.store.inbox('shop').finish('A', gen, ids, { messages: [{ body: 'now', urgent: true }] });
    let cut: CutVerbs | undefined;
    interceptPorts(kit.store, (_inner, verbs) => {
      cut = verbs;
      return {};
    }).inbox('shop');
    const planned: string[] = [];
    // The engine's own planner, as a dispatch would run it.
    const plan = (input: DispatchInput): DispatchDecision => {
      planned.push(...input.held.map((row) => row.body));
      return planDispatch(input.held, input.pacing, input.now, policyOf(input.settings, STORE_GAP_MS));
    };
    const reserved = await cut!.reserve(plan, { atMostOnce: true });
    expect(reserved?.batch.messages.map((message) => message.body)).toEqual(['now']);
    expect(planned).toEqual(['now']);
    const sent: string[] = [];
    expect(await kit.store.inbox('shop').dispatch((body) => void sent.push(body))).toBe(1);
    expect(sent).toEqual(['now']);
  });
}
