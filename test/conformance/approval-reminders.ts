/**
 * Approvals that remind (issue 51): an open approval asked with `remindAt`
 * gets one ('approval-reminder', id) event at requested time + remindAt ×
 * expiresInMs, fired by the scheduler like a one-off timer: once, never after
 * the answer, never at or after the deadline, and the time survives an
 * export and import.
 */
import { describe, expect, it } from 'vitest';
import type { InboxRecord } from '../../src/store/contract.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease } from './helpers.js';

const HOUR = 3_600_000;
const WINDOW = 4 * HOUR;
const REMINDER = 'approval-reminder';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

export function approvalReminders(target: StoreTarget): void {
  describe(`approvals that remind (${target.name})`, () => {
    const open = useStore(target);

    it('fires once at the share of the approval\'s life, with the action and the deadline, and lists the inbox then', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'refund-1', expiresInMs: WINDOW, action: { type: 'tool', tool: 'refund', input: { cents: 500 } }, remindAt: 0.75 });
      clock.set(T0 + 3 * HOUR - 1);
      expect(await store.readyInboxes()).toEqual([]);
      expect(await inbox.runScheduler()).toBe(0);
      clock.set(T0 + 3 * HOUR);
      // The wake index lists the inbox when the reminder is due, before any scheduler pass.
      expect(await store.readyInboxes()).toEqual(['alice']);
      expect(await inbox.runScheduler()).toBe(1);
      expect(await inbox.getEvent(REMINDER, 'refund-1')).toMatchObject({
        status: 'pending',
        payload: { approval: 'refund-1', action: { type: 'tool', tool: 'refund', input: { cents: 500 } }, remindAt: T0 + 3 * HOUR, expiresAt: T0 + WINDOW },
      });
      // Fired once: a later pass finds nothing, and the approval is still open.
      clock.set(T0 + 3 * HOUR + 1_000);
      expect(await inbox.runScheduler()).toBe(0);
      expect((await inbox.events()).filter((e) => e.source === REMINDER)).toHaveLength(1);
      expect(await inbox.answerApproval('refund-1', 'yes')).toBe('yes');
    });

    it('the per-approval share is honoured, and an approval asked without one never reminds', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'early', expiresInMs: WINDOW, action: 'x', remindAt: 0.25 });
      await inbox.requestApproval({ id: 'late', expiresInMs: WINDOW, action: 'x', remindAt: 0.9 });
      await inbox.requestApproval({ id: 'none', expiresInMs: WINDOW, action: 'x' });
      await inbox.requestApproval({ id: 'off', expiresInMs: WINDOW, action: 'x', remindAt: null });
      clock.set(T0 + HOUR);
      expect(await inbox.runScheduler()).toBe(1);
      expect((await inbox.events()).map((e) => [e.source, e.sourceId])).toEqual([[REMINDER, 'early']]);
      clock.set(T0 + 0.9 * WINDOW - 1);
      expect(await inbox.runScheduler()).toBe(0);
      clock.set(T0 + 0.9 * WINDOW);
      expect(await inbox.runScheduler()).toBe(1);
      expect((await inbox.events()).map((e) => e.sourceId)).toEqual(['early', 'late']);
    });

    it('never after the answer: an approval answered before its reminder is due gets none, and the inbox is not woken for it', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'x', remindAt: 0.75 });
      clock.set(T0 + HOUR);
      expect(await inbox.answerApproval('a', 'no')).toBe('no');
      // Handle the answer's event, so only a reminder could list the inbox.
      const gen = await lease(inbox, 'W');
      const batch = await inbox.claimBatch('W', gen);
      await inbox.finish('W', gen, batch.map((e) => e.id));
      await inbox.release('W', gen);
      clock.set(T0 + 3 * HOUR);
      expect(await store.readyInboxes()).toEqual([]);
      expect(await inbox.runScheduler()).toBe(0);
      expect(await inbox.getEvent(REMINDER, 'a')).toBeNull();
    });

    it('never after expiry: a scheduler that first runs past the deadline stores the expiry alone', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'x', remindAt: 0.75 });
      clock.set(T0 + WINDOW);
      expect(await inbox.runScheduler()).toBe(1);
      expect((await inbox.events()).map((e) => [e.source, e.sourceId])).toEqual([['approval', 'a']]);
      clock.set(T0 + 2 * WINDOW);
      expect(await inbox.runScheduler()).toBe(0);
      // An expired approval is a refusal, as ever.
      expect(await inbox.answerApproval('a', 'yes')).toBe('expired');
    });

    it('a run\'s finish asks with its reminder: due from the finish\'s time', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'm');
      const gen = await lease(inbox, 'W');
      const ids = (await inbox.claimBatch('W', gen)).map((e) => e.id);
      clock.set(T0 + 1_000);
      const approvals = [{ id: 'ask', expiresInMs: 10_000, action: 'do it', remindAt: 0.5 }];
      expect(await inbox.finish('W', gen, ids, { messages: [{ body: 'May I?', urgent: true }], approvals })).toBe(true);
      await inbox.release('W', gen);
      clock.set(T0 + 5_999);
      expect(await inbox.runScheduler()).toBe(0);
      clock.set(T0 + 6_000);
      expect(await store.readyInboxes()).toEqual(['alice']);
      expect(await inbox.runScheduler()).toBe(1);
      expect((await inbox.getEvent(REMINDER, 'ask'))!.payload).toMatchObject({ remindAt: T0 + 6_000, expiresAt: T0 + 11_000 });
    });

    it('a share outside (0, 1) is refused, naming remindAt, and nothing is stored', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      for (const remindAt of [0, 1, -0.5, 1.5, Number.NaN, '0.5']) {
        const error = await expectVigilError(inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action: 'x', remindAt: remindAt as number }), 'invalid_argument');
        expect(error.message).toContain('remindAt');
      }
      expect(await inbox.answerApproval('a', 'yes')).toBe('unknown');
    });

    it('export and import keep the remind time and whether it fired', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.requestApproval({ id: 'fired', expiresInMs: WINDOW, action: 'x', remindAt: 0.25 });
      await inbox.requestApproval({ id: 'waiting', expiresInMs: WINDOW, action: 'y', remindAt: 0.75 });
      await inbox.requestApproval({ id: 'plain', expiresInMs: WINDOW, action: 'z' });
      clock.set(T0 + HOUR);
      expect(await inbox.runScheduler()).toBe(1);
      const before = await collect(store.exportInbox('alice'));
      const approvals = before.filter((r): r is Extract<InboxRecord, { type: 'approval' }> => r.type === 'approval');
      expect(approvals.map((a) => [a.id, a.remindAt, a.remindedAt])).toEqual([
        ['fired', T0 + HOUR, T0 + HOUR],
        ['plain', undefined, undefined],
        ['waiting', T0 + 3 * HOUR, null],
      ]);
      expect(await store.deleteInbox('alice')).toBe(true);
      await store.importInbox('alice', before);
      expect(await collect(store.exportInbox('alice'))).toEqual(before);
      // The imported one that fired does not fire again; the waiting one fires at its time.
      clock.set(T0 + 3 * HOUR);
      expect(await inbox.runScheduler()).toBe(1);
      expect((await inbox.events()).filter((e) => e.source === REMINDER).map((e) => e.sourceId)).toEqual(['fired', 'waiting']);
    });

    it('getApproval reads one approval as stored: its exact action and its reminder; null for an id never asked', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      const action = { type: 'tool', tool: 'refund', input: { order: '42', cents: 500 }, summary: 'Refund order 42' };
      await inbox.requestApproval({ id: 'a', expiresInMs: WINDOW, action, remindAt: 0.5 });
      await inbox.requestApproval({ id: 'b', expiresInMs: WINDOW, action: 'plain' });
      expect(await inbox.getApproval('a')).toEqual({ id: 'a', action, requestedAt: T0, expiresAt: T0 + WINDOW, answer: null, answeredAt: null, remindAt: T0 + 2 * HOUR, remindedAt: null });
      expect(await inbox.getApproval('b')).toEqual({ id: 'b', action: 'plain', requestedAt: T0, expiresAt: T0 + WINDOW, answer: null, answeredAt: null });
      clock.set(T0 + 2 * HOUR);
      await inbox.runScheduler();
      expect(await inbox.getApproval('a')).toMatchObject({ remindedAt: T0 + 2 * HOUR });
      expect(await inbox.getApproval('nope')).toBeNull();
      expect(await store.inbox('nobody').getApproval('a')).toBeNull();
      await expectVigilError(inbox.getApproval(''), 'invalid_argument');
    });

    it('an import refuses a remindedAt without a remindAt, naming the record', async () => {
      const { store } = await open();
      const record = { type: 'approval', id: 'a', action: 'x', requestedAt: T0, expiresAt: T0 + WINDOW, answer: null, answeredAt: null, remindedAt: T0 };
      const error = await expectVigilError(store.importInbox('alice', [record as unknown as InboxRecord]), 'invalid_argument');
      expect(error.message).toContain('remindedAt');
      expect(await store.inboxes()).toEqual([]);
    });
  });
}
