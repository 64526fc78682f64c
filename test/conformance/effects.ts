import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease } from './helpers.js';

const TTL = 10_000;
const REFUND = { key: 'k-refund', tool: 'refund', input: { order: 42, amount: 5 } };

/** The ledger of side effects (contract/effects.ts): intended → started → confirmed | failed, unknown after a crash. */
export function effects(target: StoreTarget): void {
  describe(`ledger of side effects (${target.name})`, () => {
    const open = useStore(target);

    it('a call is started before its tool runs, and confirmed only by a recorded finish', async () => {
      const { store } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      expect(await inbox.startEffect('A', gen, REFUND)).toBe('started');
      const [row] = await inbox.effects({ which: 'all' });
      expect(row).toMatchObject({ key: 'k-refund', tool: 'refund', input: { order: 42, amount: 5 }, state: 'started', unknown: false, intendedAt: T0, startedAt: T0, settledAt: null });
      // The hash of the stable input JSON: keys sorted, so the same call hashes the same however its object was built.
      expect(row!.inputHash).toMatch(/^[0-9a-f]{64}$/);
      expect(await inbox.effects()).toEqual([]); // running in a live run: not unknown
      expect(await inbox.finish('A', gen, [a!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] })).toBe(true);
      expect(await inbox.effects({ which: 'all' })).toMatchObject([{ state: 'confirmed', settledAt: T0, unknown: false }]);
      // A confirmed call is not started again under its key.
      const gen2 = await lease(inbox, 'A');
      expect(await inbox.startEffect('A', gen2, REFUND)).toBe('confirmed');
    });

    it('a failed run settles its calls failed with its error finish; a failed call may start again', async () => {
      const { store } = await open({ leaseTtlMs: TTL, retryBackoff: { baseMs: 0, maxMs: 0 } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.startEffect('A', gen, REFUND);
      expect(await inbox.finish('A', gen, [a!.id], { error: 'tool threw', effects: [{ key: 'k-refund', state: 'failed' }] })).toBe(true);
      expect(await inbox.effects({ which: 'all' })).toMatchObject([{ state: 'failed' }]);
      const [again] = await inbox.claimBatch('A', gen);
      expect(await inbox.startEffect('A', gen, REFUND)).toBe('started');
      expect(await inbox.finish('A', gen, [again!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] })).toBe(true);
      expect(await inbox.effects({ which: 'all' })).toMatchObject([{ state: 'confirmed' }]);
    });

    it('a finish refused (lease lost) settles nothing: the call stays started, and is unknown to the next run', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.startEffect('A', gen, REFUND);
      clock.set(T0 + TTL + 1);
      expect(await inbox.finish('A', gen, [a!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] })).toBe(false);
      // Under an expired lease the call is unknown already, before anyone takes over.
      expect(await inbox.effects()).toMatchObject([{ key: 'k-refund', state: 'started', unknown: true, startedAt: T0 }]);
      const gen2 = await lease(inbox, 'B');
      expect(await inbox.effects()).toMatchObject([{ key: 'k-refund', unknown: true }]);
      // The next run does not start it again on its own.
      expect(await inbox.startEffect('B', gen2, REFUND)).toBe('unknown');
      // Nor does a finish of the new generation settle the old one's call.
      const [again] = await inbox.claimBatch('B', gen2);
      expect(await inbox.finish('B', gen2, [again!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] })).toBe(true);
      expect(await inbox.effects()).toMatchObject([{ key: 'k-refund', state: 'started', unknown: true }]);
    });

    it('finishAndClaim settles the calls as finish does, and a refused one settles nothing', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL, batchLimit: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const run = (await inbox.acquireAndClaim('A'))!;
      await inbox.startEffect('A', run.gen, REFUND);
      const next = await inbox.finishAndClaim('A', run.gen, [run.events[0]!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] });
      expect(next.finished).toBe(true);
      await inbox.startEffect('A', run.gen, { key: 'k-mail', tool: 'mail', input: {} });
      clock.set(T0 + TTL + 1);
      expect((await inbox.finishAndClaim('A', run.gen, [next.events[0]!.id], { effects: [{ key: 'k-mail', state: 'confirmed' }] })).finished).toBe(false);
      const all = await inbox.effects({ which: 'all' });
      expect(Object.fromEntries(all.map((e) => [e.key, e.state]))).toEqual({ 'k-refund': 'confirmed', 'k-mail': 'started' });
    });

    it('intended with a successful finish (a call asked about), not with a refused or failed one; started keeps when it was intended', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL, batchLimit: 1 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b', 'c');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await expectVigilError(inbox.finish('A', gen, [a!.id], { error: 'boom', intents: [REFUND] }), 'invalid_argument');
      expect(await inbox.finish('A', gen + 1, [a!.id], { intents: [REFUND] })).toBe(false);
      expect(await inbox.effects({ which: 'all' })).toEqual([]);
      expect(await inbox.finish('A', gen, [a!.id], { intents: [REFUND] })).toBe(true);
      expect(await inbox.effects({ which: 'all' })).toMatchObject([{ key: 'k-refund', state: 'intended', unknown: false, intendedAt: T0, startedAt: null, settledAt: null }]);
      expect(await inbox.effects()).toEqual([]);
      // Asked again (a retried run): the row stays as it is.
      const [b] = await inbox.claimBatch('A', gen);
      clock.set(T0 + 7);
      expect(await inbox.finish('A', gen, [b!.id], { intents: [{ ...REFUND, input: { other: true } }] })).toBe(true);
      expect(await inbox.effects({ which: 'all' })).toMatchObject([{ state: 'intended', intendedAt: T0, input: REFUND.input }]);
      // The approved call starts it.
      const [c] = await inbox.claimBatch('A', gen);
      clock.set(T0 + 9);
      expect(await inbox.startEffect('A', gen, REFUND)).toBe('started');
      expect(await inbox.finish('A', gen, [c!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] })).toBe(true);
      expect(await inbox.effects({ which: 'all' })).toMatchObject([{ state: 'confirmed', intendedAt: T0, startedAt: T0 + 9, settledAt: T0 + 9 }]);
    });

    it('a start by a run that lost its lease is refused: null, nothing written', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      await inbox.claimBatch('A', gen);
      expect(await inbox.startEffect('B', gen, REFUND)).toBeNull();
      expect(await inbox.startEffect('A', gen + 1, REFUND)).toBeNull();
      clock.set(T0 + TTL + 1);
      expect(await inbox.startEffect('A', gen, REFUND)).toBeNull();
      await lease(inbox, 'B');
      expect(await inbox.startEffect('A', gen, REFUND)).toBeNull();
      expect(await inbox.effects({ which: 'all' })).toEqual([]);
      // An inbox never written starts nothing and is not created.
      expect(await store.inbox('nobody').startEffect('A', 1, REFUND)).toBeNull();
      expect(await store.inboxes()).toEqual(['alice']);
    });

    it('states through a crash: started → unknown → settled by hand, once; not_unknown changes nothing', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      await inbox.claimBatch('A', gen);
      await inbox.startEffect('A', gen, REFUND);
      await inbox.startEffect('A', gen, { key: 'k-mail', tool: 'mail', input: { to: 'x' } });
      // A live run's call cannot be settled by hand.
      await expectVigilError(inbox.settleEffect('k-refund', 'confirmed'), 'not_unknown');
      // The worker crashes: no finish. The next run takes over.
      clock.set(T0 + TTL + 1);
      await lease(inbox, 'B');
      expect((await inbox.effects()).map((e) => e.key).sort()).toEqual(['k-mail', 'k-refund']);
      clock.set(T0 + TTL + 5);
      await inbox.settleEffect('k-refund', 'confirmed');
      await inbox.settleEffect('k-mail', 'failed');
      expect(await inbox.effects()).toEqual([]);
      const all = await inbox.effects({ which: 'all' });
      expect(Object.fromEntries(all.map((e) => [e.key, [e.state, e.settledAt]]))).toEqual({ 'k-refund': ['confirmed', T0 + TTL + 5], 'k-mail': ['failed', T0 + TTL + 5] });
      // Settled already, or never there: not unknown, and nothing changes.
      const error = await expectVigilError(inbox.settleEffect('k-refund', 'failed'), 'not_unknown');
      expect(error.message).toContain('confirmed');
      await expectVigilError(inbox.settleEffect('k-none', 'failed'), 'not_unknown');
      await expectVigilError(store.inbox('nobody').settleEffect('k-none', 'failed'), 'not_unknown');
      expect(await inbox.effects({ which: 'all' })).toEqual(all);
      expect(await store.inboxes()).toEqual(['alice']);
    });

    it('export → import round trip: every call, its state and times; an unknown call stays unknown', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.startEffect('A', gen, REFUND);
      await inbox.finish('A', gen, [a!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] });
      await ingestAll(inbox, 'b');
      await inbox.claimBatch('A', gen);
      clock.set(T0 + 5);
      await inbox.startEffect('A', gen, { key: 'k-mail', tool: 'mail', input: { to: 'x', nested: { b: 1, a: [2] } } });
      clock.set(T0 + TTL + 1); // the worker died: k-mail is unknown
      const before = await inbox.effects({ which: 'all' });
      const records = [];
      for await (const record of store.exportInbox('alice')) records.push(record);
      expect(records.filter((r) => r.type === 'effect')).toHaveLength(2);
      await store.importInbox('bob', records);
      expect(await store.inbox('bob').effects({ which: 'all' })).toEqual(before);
      expect((await store.inbox('bob').effects()).map((e) => e.key)).toEqual(['k-mail']);
      await store.inbox('bob').settleEffect('k-mail', 'failed');
      // A record the ledger could not hold is refused, naming it, and nothing is imported.
      const bad = records.map((r) => (r.type === 'effect' ? { ...r, state: 'confirmed' as const, settledAt: null } : r));
      const error = await expectVigilError(store.importInbox('carol', bad), 'invalid_argument');
      expect(error.message).toMatch(/record \d+ \(effect\): settledAt/);
      expect(await store.inboxes()).not.toContain('carol');
    });

    it('retention: settled calls are pruned settledEffectsMs after settling; an unknown one stays', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL, retention: { settledEffectsMs: 1_000 } });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await inbox.startEffect('A', gen, REFUND);
      await inbox.startEffect('A', gen, { key: 'k-mail', tool: 'mail', input: {} });
      await inbox.finish('A', gen, [a!.id], { effects: [{ key: 'k-refund', state: 'confirmed' }] });
      clock.set(T0 + 999);
      expect((await store.prune()).effects).toBe(0);
      clock.set(T0 + 1_000);
      expect(await store.prune()).toMatchObject({ effects: 1, more: false });
      expect((await inbox.effects({ which: 'all' })).map((e) => e.key)).toEqual(['k-mail']);
      clock.set(T0 + 100 * TTL);
      expect((await store.prune()).effects).toBe(0);
      expect((await inbox.effects()).map((e) => e.key)).toEqual(['k-mail']);
    });

    it('bad input is invalid_argument and writes nothing', async () => {
      const { store } = await open({ leaseTtlMs: TTL, maxPayloadBytes: 1000 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      await expectVigilError(inbox.startEffect('A', gen, { key: '', tool: 'refund', input: {} }), 'invalid_argument');
      await expectVigilError(inbox.startEffect('A', gen, { key: 'k', tool: 'refund', input: [] as never }), 'invalid_argument');
      await expectVigilError(inbox.startEffect('A', gen, { key: 'k', tool: 'refund', input: { big: 'x'.repeat(2000) } }), 'invalid_argument');
      await expectVigilError(inbox.settleEffect('k', 'maybe' as never), 'invalid_argument');
      await expectVigilError(inbox.effects({ which: 'some' as never }), 'invalid_argument');
      await expectVigilError(inbox.finish('A', gen, [a!.id], { effects: [{ key: 'k', state: 'started' as never }] }), 'invalid_argument');
      expect(await inbox.effects({ which: 'all' })).toEqual([]);
      expect((await inbox.events())[0]!.status).toBe('running');
    });
  });
}
