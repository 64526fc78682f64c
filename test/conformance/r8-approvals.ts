import { describe, expect, it } from 'vitest';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const HOUR = 3_600_000;
const WINDOW = 4 * HOUR;

export function r8Approvals(target: StoreTarget): void {
  describe(`R8 approvals (${target.name})`, () => {
    const open = useStore(target);

    describe('the reference cases', () => {
      it('expiry ran at 5h, yes at 6h -> expired', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'refund-881', expiresInMs: WINDOW, action: 'refund order 881' });
        clock.set(T0 + 5 * HOUR);
        expect(await inbox.runScheduler()).toBe(1);
        expect(await inbox.getEvent('approval', 'refund-881')).toMatchObject({
          status: 'pending',
          payload: { approval: 'refund-881', answer: 'expired', action: 'refund order 881', scheduledFor: T0 + WINDOW, lateBy: HOUR, skipped: 0 },
        });
        clock.set(T0 + 6 * HOUR);
        expect(await inbox.answerApproval('refund-881', 'yes')).toBe('expired');
        expect(await inbox.events()).toHaveLength(1);
      });

      it('yes at 5h with the scheduler not run yet -> expired, and the expiry is what is stored', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'refund-882', expiresInMs: WINDOW, action: { order: 882 } });
        clock.set(T0 + 5 * HOUR);
        expect(await inbox.answerApproval('refund-882', 'yes')).toBe('expired');
        // The same expiry the scheduler would have stored: a worker cannot tell which came first.
        expect((await inbox.getEvent('approval', 'refund-882'))!.payload).toEqual({
          approval: 'refund-882',
          answer: 'expired',
          action: { order: 882 },
          scheduledFor: T0 + WINDOW,
          lateBy: HOUR,
          skipped: 0,
        });
        // The scheduler then finds nothing left to expire.
        expect(await inbox.runScheduler()).toBe(0);
        expect(await inbox.events()).toHaveLength(1);
      });

      it('yes at 1h, a second tap no at 2h -> yes stands; the expiry timer changes nothing later', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'refund-883', expiresInMs: WINDOW, action: 'refund order 883' });
        clock.set(T0 + HOUR);
        expect(await inbox.answerApproval('refund-883', 'yes')).toBe('yes');
        expect(await inbox.getEvent('approval', 'refund-883')).toMatchObject({
          payload: { approval: 'refund-883', answer: 'yes', action: 'refund order 883' },
        });
        clock.set(T0 + 2 * HOUR);
        expect(await inbox.answerApproval('refund-883', 'no')).toBe('yes');
        clock.set(T0 + 5 * HOUR);
        expect(await inbox.runScheduler()).toBe(0);
        expect(((await inbox.getEvent('approval', 'refund-883'))!.payload as { answer: string }).answer).toBe('yes');
        expect(await inbox.answerApproval('refund-883', 'no')).toBe('yes');
        expect(await inbox.events()).toHaveLength(1);
      });

      it('never requested -> unknown, storing nothing', async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        expect(await inbox.answerApproval('refund-999', 'yes')).toBe('unknown');
        await inbox.requestApproval({ id: 'other', expiresInMs: WINDOW, action: null });
        expect(await inbox.answerApproval('refund-999', 'yes')).toBe('unknown');
        expect(await inbox.events()).toEqual([]);
      });
    });

    it("an ('approval', id) event someone stored by hand without an answer blocks every answer: unknown, and it stays as it was", async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'x' });
      await inbox.requestApproval({ id: 'b', expiresInMs: WINDOW, action: 'x' });
      await inbox.ingest({ source: 'approval', sourceId: 'a' });
      await inbox.ingest({ source: 'approval', sourceId: 'b', payload: { answer: 'maybe' } });
      expect(await inbox.answerApproval('a', 'yes')).toBe('unknown');
      expect(await inbox.answerApproval('b', 'no')).toBe('unknown');
      expect((await inbox.getEvent('approval', 'a'))!.payload).toBeNull();
      expect((await inbox.getEvent('approval', 'b'))!.payload).toEqual({ answer: 'maybe' });
    });

    it('the deadline is exact: an answer 1 ms before it stands, an answer at it is expired', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'x' });
      await inbox.requestApproval({ id: 'b', expiresInMs: WINDOW, action: 'x' });
      clock.set(T0 + WINDOW - 1);
      expect(await inbox.answerApproval('a', 'no')).toBe('no');
      clock.set(T0 + WINDOW);
      expect(await inbox.answerApproval('b', 'yes')).toBe('expired');
    });

    it('the scheduler expires an approval exactly at its deadline, not 1 ms before', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'x' });
      clock.set(T0 + WINDOW - 1);
      expect(await inbox.runScheduler()).toBe(0);
      expect(await inbox.events()).toEqual([]);
      clock.set(T0 + WINDOW);
      expect(await inbox.runScheduler()).toBe(1);
      expect((await inbox.getEvent('approval', 'a'))!.payload).toEqual({
        approval: 'a',
        answer: 'expired',
        action: 'x',
        scheduledFor: T0 + WINDOW,
        lateBy: 0,
        skipped: 0,
      });
      expect(await inbox.runScheduler()).toBe(0);
    });

    it('asking again never extends the deadline nor changes the action', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'first' });
      clock.set(T0 + 3 * HOUR);
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'second' });
      clock.set(T0 + WINDOW);
      expect(await inbox.answerApproval('a', 'yes')).toBe('expired');
      expect((await inbox.getEvent('approval', 'a'))!.payload).toMatchObject({ action: 'first' });
    });

    it('asking again after an answer or an expiry changes nothing', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'answered', expiresInMs: WINDOW, action: 'x' });
      await inbox.requestApproval({ id: 'lapsed', expiresInMs: HOUR, action: 'x' });
      expect(await inbox.answerApproval('answered', 'no')).toBe('no');
      clock.set(T0 + 2 * HOUR);
      await inbox.runScheduler();
      await inbox.requestApproval({ id: 'answered', expiresInMs: WINDOW, action: 'again' });
      await inbox.requestApproval({ id: 'lapsed', expiresInMs: WINDOW, action: 'again' });
      expect(await inbox.answerApproval('answered', 'yes')).toBe('no');
      expect(await inbox.answerApproval('lapsed', 'yes')).toBe('expired');
      expect((await inbox.stats()).approvalsPending).toBe(0);
      expect(await inbox.events()).toHaveLength(2);
    });

    it('approvalsPending counts unanswered approvals whose deadline is still ahead', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      expect((await inbox.stats()).approvalsPending).toBe(0);
      await inbox.requestApproval({ id: 'a', expiresInMs: HOUR, action: 'x' });
      await inbox.requestApproval({ id: 'b', expiresInMs: WINDOW, action: 'x' });
      await inbox.requestApproval({ id: 'c', expiresInMs: WINDOW, action: 'x' });
      expect((await inbox.stats()).approvalsPending).toBe(3);
      await inbox.answerApproval('c', 'yes');
      expect((await inbox.stats()).approvalsPending).toBe(2);
      clock.set(T0 + HOUR - 1);
      expect((await inbox.stats()).approvalsPending).toBe(2);
      clock.set(T0 + HOUR); // a's deadline: no longer pending, even before the scheduler runs
      expect((await inbox.stats()).approvalsPending).toBe(1);
    });

    it("runScheduler's count includes expired approvals next to due timers", async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: HOUR, action: 'x' });
      await inbox.requestApproval({ id: 'b', expiresInMs: HOUR, action: 'x' });
      await inbox.addTimer({ id: 't', due: T0 + HOUR });
      clock.set(T0 + HOUR);
      expect(await inbox.runScheduler()).toBe(3);
      expect((await inbox.events()).map((e) => `${e.source}/${e.sourceId}`).sort()).toEqual([
        'approval/a',
        'approval/b',
        `timer/t@${T0 + HOUR}`,
      ]);
    });

    it('the answer arrives as an ordinary inbox event a worker claims', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: HOUR, action: { tool: 'refund', amount: 12 } });
      await inbox.answerApproval('a', 'yes');
      const gen = await lease(inbox, 'W');
      expect(await inbox.claimBatch('W', gen)).toMatchObject([
        { source: 'approval', sourceId: 'a', attempts: 1, payload: { approval: 'a', answer: 'yes', action: { tool: 'refund', amount: 12 } } },
      ]);
    });

    it('two answers through two handles: exactly one stands and both calls report it', async () => {
      const { store, reopen } = await open();
      const other = await reopen();
      await store.inbox('alice').requestApproval({ id: 'a', expiresInMs: HOUR, action: 'x' });
      const results = await Promise.all([store.inbox('alice').answerApproval('a', 'yes'), other.inbox('alice').answerApproval('a', 'no')]);
      expect(results[0]).toBe(results[1]);
      const stored = (await store.inbox('alice').getEvent('approval', 'a'))!.payload as { answer: string };
      expect(stored.answer).toBe(results[0]);
      expect(await store.inbox('alice').events()).toHaveLength(1);
    });

    describe('bad input', () => {
      it.each([
        ['maybe', 'maybe'],
        ['YES', 'YES'],
        ['expired', 'expired'],
        ['undefined', undefined],
      ])('an answer of %s is invalid_argument and stores nothing', async (_what, answer) => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'a', expiresInMs: HOUR, action: 'x' });
        await expectVigilError(inbox.answerApproval('a', answer as never), 'invalid_argument');
        expect(await inbox.events()).toEqual([]);
        expect((await inbox.stats()).approvalsPending).toBe(1);
        expect(await inbox.answerApproval('a', 'yes')).toBe('yes');
      });

      it.each([
        ['expiresInMs 0', { id: 'a', expiresInMs: 0, action: 'x' }],
        ['expiresInMs -1', { id: 'a', expiresInMs: -1, action: 'x' }],
        ['expiresInMs 1.5', { id: 'a', expiresInMs: 1.5, action: 'x' }],
        ['expiresInMs as a string', { id: 'a', expiresInMs: '1000', action: 'x' }],
        ['no expiresInMs', { id: 'a', action: 'x' }],
        ['an empty id', { id: '', expiresInMs: HOUR, action: 'x' }],
        ['an id over 256 characters', { id: 'a'.repeat(257), expiresInMs: HOUR, action: 'x' }],
        ['an action that is not JSON', { id: 'a', expiresInMs: HOUR, action: { run: () => 1 } }],
        ['not an object', 'a'],
      ])('requestApproval with %s is invalid_argument and stores nothing', async (_what, request) => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await expectVigilError(inbox.requestApproval(request as never), 'invalid_argument');
        expect((await inbox.stats()).approvalsPending).toBe(0);
        expect(await inbox.answerApproval('a', 'yes')).toBe('unknown');
        expect(await store.inboxes()).toEqual([]);
      });

      it('an action over maxPayloadBytes is invalid_argument; exactly at it is fine', async () => {
        const { store } = await open({ maxPayloadBytes: 12 });
        const inbox = store.inbox('alice');
        await expectVigilError(inbox.requestApproval({ id: 'a', expiresInMs: HOUR, action: 'x'.repeat(11) }), 'invalid_argument');
        expect((await inbox.stats()).approvalsPending).toBe(0);
        await inbox.requestApproval({ id: 'a', expiresInMs: HOUR, action: 'x'.repeat(10) }); // 12 bytes as JSON
        expect((await inbox.stats()).approvalsPending).toBe(1);
      });

      it('answerApproval with an empty id is invalid_argument', async () => {
        const { store } = await open();
        await expectVigilError(store.inbox('alice').answerApproval('', 'yes'), 'invalid_argument');
      });

      it('expiresInMs of 1 ms works: pending now, expired 1 ms later', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.requestApproval({ id: 'a', expiresInMs: 1, action: 'x' });
        expect((await inbox.stats()).approvalsPending).toBe(1);
        clock.advance(1);
        expect(await inbox.answerApproval('a', 'yes')).toBe('expired');
      });
    });
  });
}
