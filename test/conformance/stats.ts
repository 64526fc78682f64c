import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, expectVigilErrorSync, lease } from './helpers.js';

const TTL = 10_000;

export function statsAndLifecycle(target: StoreTarget): void {
  describe(`stats, inboxes and close (${target.name})`, () => {
    const open = useStore(target);

    it('stats() of an inbox never written is all zero, and asking creates nothing', async () => {
      const { store } = await open();
      const ghost = store.inbox('ghost');
      expect(await ghost.stats()).toEqual({
        events: { pending: 0, running: 0, done: 0, dead: 0 },
        outbox: { held: 0, sent: 0, undeliverable: 0, rejected: 0 },
        timers: 0,
        approvalsPending: 0,
        lease: null,
        usage: { pendingEvents: 0, pendingBytes: 0, eventsThisMinute: 0, today: expect.objectContaining({ runs: 0 }), month: expect.objectContaining({ runs: 0 }) },
        budget: null,
      });
      // Every read and every refusable call on it leaves it unborn.
      expect(await ghost.events()).toEqual([]);
      expect(await ghost.getEvent('s', '1')).toBeNull();
      expect(await ghost.timers()).toEqual([]);
      expect(await ghost.removeTimer('t')).toBe(false);
      expect(await ghost.runScheduler()).toBe(0);
      expect(await ghost.answerApproval('a', 'yes')).toBe('unknown');
      expect(await ghost.dispatch(() => undefined)).toBe(0);
      expect(await ghost.redrive(1)).toBe(false);
      expect(await ghost.release('W', 1)).toBe(false);
      expect(await ghost.claimBatch('W', 1)).toEqual([]);
      expect(await ghost.finish('W', 1, [])).toBe(false);
      expect(await store.inboxes()).toEqual([]);
      expect(await store.readyInboxes()).toEqual([]);
    });

    it('stats() counts every status, the outbox, live timers, pending approvals and the lease', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL, maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await inbox.ingestMany(['dead', 'done', 'running'].map((sourceId) => ({ source: 's', sourceId })));
      const gen = await lease(inbox, 'W');
      const [dead, done] = await inbox.claimBatch('W', gen);
      await inbox.finish('W', gen, [dead!.id], { error: 'poison' });
      await inbox.finish('W', gen, [done!.id], { messages: ['one', 'two'] });
      expect(await inbox.claimBatch('W', gen)).toEqual([]); // kills 'dead'
      await inbox.ingestMany(['pending 1', 'pending 2'].map((sourceId) => ({ source: 's', sourceId })));
      await inbox.dispatch(() => undefined);
      await inbox.finish('W', gen, [], { messages: ['three'] });
      await inbox.addTimer({ id: 'live', due: T0 + 1_000, every: 1_000 });
      await inbox.addTimer({ id: 'fired', due: T0 });
      await inbox.runScheduler(); // 'fired' is done now and makes one more pending event
      await inbox.requestApproval({ id: 'open', expiresInMs: 1_000, action: 'x' });
      await inbox.requestApproval({ id: 'answered', expiresInMs: 1_000, action: 'x' });
      await inbox.answerApproval('answered', 'no'); // one more pending event
      clock.advance(10);
      // Pending for the quotas: not yet done or dead, whichever way each event came and went (contract/limits.ts).
      const unfinished = (await inbox.events()).filter((e) => e.status === 'pending' || e.status === 'running');
      const pendingBytes = unfinished.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e.payload)), 0);
      expect(await inbox.stats()).toEqual({
        events: { pending: 4, running: 1, done: 1, dead: 1 },
        outbox: { held: 1, sent: 2, undeliverable: 0, rejected: 0 },
        timers: 1,
        approvalsPending: 1,
        lease: { holder: 'W', gen, until: T0 + TTL },
        usage: { pendingEvents: 5, pendingBytes, eventsThisMinute: 0, today: expect.objectContaining({ runs: 0 }), month: expect.objectContaining({ runs: 0 }) },
        budget: null,
      });
      expect(await inbox.events({ status: 'running' })).toMatchObject([{ sourceId: 'running' }]);
    });

    it('inboxes() lists the inboxes written to, sorted', async () => {
      const { store, reopen } = await open();
      await store.inbox('zed').ingest({ source: 's', sourceId: '1' });
      await store.inbox('amy').addTimer({ id: 't', due: T0 });
      await store.inbox('Bob').requestApproval({ id: 'a', expiresInMs: 10, action: null });
      await store.inbox('carl').acquire('W');
      store.inbox('never'); // cheap: creates nothing
      expect(await store.inboxes()).toEqual(['Bob', 'amy', 'carl', 'zed']);
      expect(await (await reopen()).inboxes()).toEqual(['Bob', 'amy', 'carl', 'zed']);
    });

    it('getEvent returns the full row, or null for an unknown key', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      clock.set(T0 + 7);
      await inbox.ingest({ source: 'mail', sourceId: 'm-1', payload: { subject: 'hi', n: [1, 2] } });
      const row = await inbox.getEvent('mail', 'm-1');
      expect(row).toEqual({
        id: row!.id,
        source: 'mail',
        sourceId: 'm-1',
        payload: { subject: 'hi', n: [1, 2] },
        attempts: 0,
        status: 'pending',
        error: null,
        lastError: null,
        receivedAt: T0 + 7,
      });
      expect(Number.isSafeInteger(row!.id)).toBe(true);
      expect(await inbox.getEvent('mail', 'm-2')).toBeNull();
      expect(await inbox.getEvent('other', 'm-1')).toBeNull();
    });

    it('after close every call is store_closed; closing twice is fine', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      await store.close();
      await store.close();
      expectVigilErrorSync(() => store.inbox('alice'), 'store_closed');
      await expectVigilError(inbox.ingest({ source: 's', sourceId: '2' }), 'store_closed');
      await expectVigilError(inbox.events(), 'store_closed');
      await expectVigilError(store.inboxes(), 'store_closed');
      await expectVigilError(store.readyInboxes(), 'store_closed');
    });

    it('after close every call of the store itself is store_closed, saying to open a new one', async () => {
      const { store } = await open();
      await store.close();
      const sync = expectVigilErrorSync(() => store.view('alice'), 'store_closed');
      expect(sync.message).toBe('this store was closed; open a new one with openStore()');
      for (const call of [
        () => store.listInboxes(),
        () => store.dispatchableInboxes(),
        () => store.nextWake(),
        () => store.subscribe(() => undefined),
        () => store.endSession('s', T0 + 1_000),
        () => store.sessionEnded('s'),
      ]) {
        await expectVigilError(call(), 'store_closed');
      }
    });

    it('subscribe needs a function; a view has the id it was asked for', async () => {
      const { store } = await open();
      const error = await expectVigilError(store.subscribe('listener' as never), 'invalid_argument');
      expect(error.message).toBe('subscribe needs a listener function');
      expect(store.view('alice').id).toBe('alice');
      expect(store.inbox('alice').id).toBe('alice');
    });

    it("getEvent's keys are checked, each refusal naming its field", async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect((await expectVigilError(inbox.getEvent('', '1'), 'invalid_argument')).message).toMatch(/^source must be a non-empty string/);
      expect((await expectVigilError(inbox.getEvent('s', 'x'.repeat(257)), 'invalid_argument')).message).toMatch(/^sourceId must be a non-empty string/);
      expect(await store.inboxes()).toEqual([]);
    });

    it('Symbol.asyncDispose closes the store', async () => {
      const { store, reopen } = await open();
      {
        await using other = await reopen();
        await other.inbox('alice').ingest({ source: 's', sourceId: '1' });
      }
      expect(await store.inbox('alice').getEvent('s', '1')).not.toBeNull();
      const disposable = await reopen();
      await disposable[Symbol.asyncDispose]();
      await expectVigilError(disposable.inboxes(), 'store_closed');
    });

    it.each([
      ['leaseTtlMs 0', { leaseTtlMs: 0 }],
      ['leaseTtlMs 1.5', { leaseTtlMs: 1.5 }],
      ['maxAttempts 0', { maxAttempts: 0 }],
      ['outboxGapMs -1', { outboxGapMs: -1 }],
      ['batchLimit 0', { batchLimit: 0 }],
      ['batchLimit 2.5', { batchLimit: 2.5 }],
      ['maxPayloadBytes 0', { maxPayloadBytes: 0 }],
      ['retryBackoff.baseMs 0.5', { retryBackoff: { baseMs: 0.5 } }],
      ['retryBackoff.maxMs below baseMs', { retryBackoff: { baseMs: 1_000, maxMs: 999 } }],
      ['a clock that is not a function', { clock: 42 }],
      // Past the bounds (engine/validate/bounds.ts): each names its field.
      ['leaseTtlMs past 2^31-1 (a Node timer waits it out)', { leaseTtlMs: 2 ** 31 }],
      ['busyTimeoutMs past 2^31-1', { busyTimeoutMs: 2 ** 31 }],
      ['outboxGapMs 2^53-1', { outboxGapMs: 2 ** 53 - 1 }],
      ['retryBackoff.maxMs past ten years', { retryBackoff: { maxMs: 315_576_000_001 } }],
      ['retention.doneEventsMs 2^53-1', { retention: { doneEventsMs: 2 ** 53 - 1 } }],
      ['maxAttempts past a billion', { maxAttempts: 1_000_000_001 }],
      ['maxPayloadBytes past 1 GiB', { maxPayloadBytes: 2 ** 30 + 1 }],
    ])('opening a store with %s is invalid_options', async (what, options) => {
      const error = await expectVigilError(open(options as never), 'invalid_options');
      if (what.includes('past') || what.includes('2^53')) expect(error.message).toContain(`${error.field} must be an integer from`);
    });

    it('the largest of each bounded option opens a store that works', async () => {
      const { store } = await open({ leaseTtlMs: 2 ** 31 - 1, outboxGapMs: 315_576_000_000, retryBackoff: { baseMs: 315_576_000_000, maxMs: 315_576_000_000 }, retention: { doneEventsMs: 315_576_000_000 } });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      const gen = await lease(inbox, 'w');
      expect(await inbox.claimBatch('w', gen)).toHaveLength(1);
    });
  });
}
