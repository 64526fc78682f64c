/**
 * What an agent keeps between runs (src/store/agent-state.ts): the session
 * and memory are saved by a successful finish, in its transaction, fenced
 * like the rest of it (R3); and a finish may send events dead at once (R6)
 * when no retry can help.
 */
import { describe, expect, it } from 'vitest';
import { MEMORY_LIMITS, type Inbox } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease } from './helpers.js';

async function claimAll(inbox: Inbox, holder: string): Promise<{ gen: number; ids: number[] }> {
  const gen = await lease(inbox, holder);
  const ids = (await inbox.claimBatch(holder, gen)).map((e) => e.id);
  return { gen, ids };
}

export function agentState(target: StoreTarget): void {
  describe(`Sessions and memory, saved with finish (${target.name})`, () => {
    const open = useStore(target);

    it('a session is saved with a successful finish, replaced by the next, cleared with null, kept when absent', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect(await inbox.getSession()).toBeNull();
      expect(await store.inbox('ghost').getSession()).toBeNull();
      await ingestAll(inbox, 'a');
      const first = await claimAll(inbox, 'W');
      const { gen } = first;
      let { ids } = first;
      const session = { history: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], pending: { 'ap-1': 'toolu_1' } };
      expect(await inbox.finish('W', gen, ids, { messages: ['hello'], session })).toBe(true);
      expect(await inbox.getSession()).toEqual(session);
      await ingestAll(inbox, 'b');
      ({ ids } = await claimAll(inbox, 'W'));
      expect(await inbox.finish('W', gen, ids, {})).toBe(true);
      expect(await inbox.getSession()).toEqual(session);
      expect(await inbox.finish('W', gen, [], { session: { step: 2 } })).toBe(true);
      expect(await inbox.getSession()).toEqual({ step: 2 });
      expect(await inbox.finish('W', gen, [], { session: null })).toBe(true);
      expect(await inbox.getSession()).toBeNull();
    });

    it('a refused finish (R3) saves neither session nor memory', async () => {
      const { store, clock } = await open({ leaseTtlMs: 1_000 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      clock.advance(1_001);
      await lease(inbox, 'B'); // took over
      expect(await inbox.finish('W', gen, ids, { messages: ['late'], session: { late: true }, memory: { set: { k: 1 } } })).toBe(false);
      expect(await inbox.getSession()).toBeNull();
      expect(await inbox.getMemory()).toEqual({});
    });

    it('session and memory come only with success: with an error they are refused, and nothing changes', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      await expectVigilError(inbox.finish('W', gen, ids, { error: 'boom', session: { x: 1 } }), 'invalid_argument');
      await expectVigilError(inbox.finish('W', gen, ids, { error: 'boom', memory: { set: { k: 1 } } }), 'invalid_argument');
      expect((await inbox.stats()).events.running).toBe(1);
      expect(await inbox.getSession()).toBeNull();
    });

    it('memory: set and delete with the finish, every JSON value round-trips', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      const values = { name: 'Ada', 'order:42': { total: 19.5, items: ['book'] }, flag: false, nothing: null, n: 0 };
      expect(await inbox.finish('W', gen, ids, { memory: { set: values } })).toBe(true);
      expect(await inbox.getMemory()).toEqual(values);
      expect(await inbox.finish('W', gen, [], { memory: { set: { name: 'Grace' }, delete: ['flag', 'never-set'] } })).toBe(true);
      expect(await inbox.getMemory()).toEqual({ name: 'Grace', 'order:42': { total: 19.5, items: ['book'] }, nothing: null, n: 0 });
    });

    it.each([
      ['an empty key', { set: { '': 1 } }],
      ['a key over the length limit', { set: { ['k'.repeat(MEMORY_LIMITS.keyLength + 1)]: 1 } }],
      ['a value over the size limit', { set: { big: 'x'.repeat(MEMORY_LIMITS.valueBytes) } }],
      ['a value JSON cannot hold', { set: { n: Number.NaN } }],
      ['undefined as a value', { set: { u: undefined } }],
      ['a key both set and deleted', { set: { k: 1 }, delete: ['k'] }],
      ['delete that is not an array', { delete: 'k' }],
      ['set that is not an object', { set: ['k'] }],
    ])('memory with %s is invalid_memory, and nothing of the finish is saved', async (_what, memory) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      await expectVigilError(inbox.finish('W', gen, ids, { messages: ['m'], memory: memory as never }), 'invalid_memory');
      expect((await inbox.stats()).events.running).toBe(1);
      expect((await inbox.stats()).outbox.held).toBe(0);
      expect(await inbox.getMemory()).toEqual({});
    });

    it('memory over its total limit is memory_full: the whole finish rolls back, events still running', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a', 'b');
      const gen = await lease(inbox, 'W');
      const [first, second] = await inbox.claimBatch('W', gen);
      const chunk = 'x'.repeat(MEMORY_LIMITS.valueBytes - 100);
      const keys = Math.floor(MEMORY_LIMITS.totalBytes / MEMORY_LIMITS.valueBytes) - 1;
      const fits = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, chunk]));
      expect(await inbox.finish('W', gen, [first!.id], { memory: { set: fits } })).toBe(true);
      const error = await expectVigilError(
        inbox.finish('W', gen, [second!.id], { messages: ['m'], session: { s: 1 }, memory: { set: { more1: chunk, more2: chunk } } }),
        'memory_full',
      );
      expect(error.message).toContain(`limit is ${MEMORY_LIMITS.totalBytes}`);
      expect(await inbox.getEvent('s', 'b')).toMatchObject({ status: 'running' });
      expect((await inbox.stats()).outbox.held).toBe(0);
      expect(await inbox.getSession()).toBeNull();
      expect(Object.keys(await inbox.getMemory())).toHaveLength(keys);
      // Deleting makes room, in the same finish.
      expect(await inbox.finish('W', gen, [second!.id], { memory: { set: { more1: chunk }, delete: ['k0', 'k1'] } })).toBe(true);
      expect(Object.keys(await inbox.getMemory())).toHaveLength(keys - 1);
    });
  });

  describe(`R8 approvals asked with finish (${target.name})`, () => {
    const open = useStore(target);

    it('an approval in the outcome exists once the finish commits, with its deadline from then; asking again keeps it', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      const request = { id: 'refund-42', expiresInMs: 60_000, action: { refund: 42 } };
      expect(await inbox.finish('W', gen, ids, { messages: [{ body: 'Approve refund 42?', urgent: true }], approvals: [request] })).toBe(true);
      expect((await inbox.stats()).approvalsPending).toBe(1);
      clock.advance(30_000);
      expect(await inbox.finish('W', gen, [], { approvals: [{ ...request, expiresInMs: 3_600_000 }] })).toBe(true);
      clock.advance(30_000); // the first deadline
      expect(await inbox.answerApproval('refund-42', 'yes')).toBe('expired');
    });

    it('a refused finish asks nothing, and approvals with an error are refused', async () => {
      const { store, clock } = await open({ leaseTtlMs: 1_000 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      const request = { id: 'ask-1', expiresInMs: 60_000, action: 'do it' };
      await expectVigilError(inbox.finish('W', gen, ids, { error: 'boom', approvals: [request] }), 'invalid_argument');
      await expectVigilError(inbox.finish('W', gen, ids, { approvals: [{ id: '', expiresInMs: 1, action: 1 }] }), 'invalid_argument');
      clock.advance(1_001);
      await lease(inbox, 'B');
      expect(await inbox.finish('W', gen, ids, { approvals: [request] })).toBe(false);
      expect((await inbox.stats()).approvalsPending).toBe(0);
      expect(await inbox.answerApproval('ask-1', 'yes')).toBe('unknown');
    });
  });

  describe(`R6 dead at once: finish with { error, dead: true } (${target.name})`, () => {
    const open = useStore(target);

    it('the events are dead with the reason after one attempt, and redrive brings them back', async () => {
      const { store } = await open({ maxAttempts: 5 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'bad', 'worse');
      const { gen, ids } = await claimAll(inbox, 'W');
      expect(await inbox.finish('W', gen, ids, { error: 'the model refused the request: 400 invalid_request_error', dead: true })).toBe(true);
      const dead = await inbox.events({ status: 'dead' });
      expect(dead.map((e) => [e.sourceId, e.attempts, e.error])).toEqual([
        ['bad', 1, 'the model refused the request: 400 invalid_request_error'],
        ['worse', 1, 'the model refused the request: 400 invalid_request_error'],
      ]);
      expect(await inbox.claimBatch('W', gen)).toEqual([]);
      expect(await inbox.redrive(dead[0]!.id)).toBe(true);
      expect((await inbox.claimBatch('W', gen)).map((e) => e.sourceId)).toEqual(['bad']);
    });

    it('dead without an error, or not a boolean, is invalid_argument', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      await expectVigilError(inbox.finish('W', gen, ids, { dead: true }), 'invalid_argument');
      await expectVigilError(inbox.finish('W', gen, ids, { error: 'x', dead: 'yes' as never }), 'invalid_argument');
      expect((await inbox.stats()).events.running).toBe(1);
    });

    it('fenced like any finish: a stale generation sends nothing dead', async () => {
      const { store, clock } = await open({ leaseTtlMs: 1_000 });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const { gen, ids } = await claimAll(inbox, 'W');
      clock.advance(1_001);
      await lease(inbox, 'B');
      expect(await inbox.finish('W', gen, ids, { error: 'x', dead: true })).toBe(false);
      expect((await inbox.stats()).events.dead).toBe(0);
    });
  });
}
