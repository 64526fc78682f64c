/**
 * Retention (contract.ts: RetentionOptions, Store.prune): finished rows go
 * once their age reaches their kind's retention, counted from when they
 * finished; a pruned event's key stays as a tombstone, forever; nothing
 * pending, running, held or open is ever pruned. The same on every store.
 */
import { describe, expect, it } from 'vitest';
import type { Inbox, Store } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const DAY = 86_400_000;

/** Ingests, claims and finishes `sourceIds` in one run: done, at the clock's now. */
async function runToDone(inbox: Inbox, ...sourceIds: string[]): Promise<void> {
  await inbox.ingestMany(sourceIds.map((sourceId) => ({ source: 's', sourceId, payload: { sourceId } })));
  const gen = await lease(inbox, 'W');
  const claimed = await inbox.claimBatch('W', gen);
  expect(await inbox.finish('W', gen, claimed.map((e) => e.id))).toBe(true);
  await inbox.release('W', gen);
}

/** Prunes until the sweep is over; the totals. */
async function pruneAll(store: Store, limit?: number): Promise<{ events: number; messages: number; approvals: number; actions: number; calls: number }> {
  const total = { events: 0, messages: 0, approvals: 0, actions: 0, calls: 0 };
  for (;;) {
    const pruned = await store.prune(limit === undefined ? undefined : { limit });
    total.calls++;
    total.events += pruned.events;
    total.messages += pruned.messages;
    total.approvals += pruned.approvals;
    total.actions += pruned.actions;
    if (limit !== undefined) expect(pruned.events + pruned.messages + pruned.approvals + pruned.actions).toBeLessThanOrEqual(limit);
    if (!pruned.more) return total;
    expect(total.calls).toBeLessThan(1_000);
  }
}

/** One finished row of each kind in `inbox`, at the clock's now: a done event, a sent message, an answered approval, an operator action. */
async function oneOfEachKind(inbox: Inbox): Promise<void> {
  await inbox.ingest({ source: 's', sourceId: 'done' });
  const gen = await lease(inbox, 'W');
  const [done] = await inbox.claimBatch('W', gen);
  expect(await inbox.finish('W', gen, [done!.id], { messages: ['hi'], approvals: [{ id: 'refund', expiresInMs: DAY, action: {} }] })).toBe(true);
  await inbox.release('W', gen);
  expect(await inbox.dispatch(() => undefined)).toBe(1);
  expect(await inbox.answerApproval('refund', 'yes')).toBe('yes');
  await inbox.recordAction({ actor: 'ops', action: 'redrive', target: 'event 1', result: 'ok' });
}

const removed = (pruned: { events: number; messages: number; approvals: number; actions: number }): number =>
  pruned.events + pruned.messages + pruned.approvals + pruned.actions;

export function retention(target: StoreTarget): void {
  describe(`retention and tombstones (${target.name})`, () => {
    const open = useStore(target);

    it('a done event is kept one ms before its retention and pruned at it; its key stays refused, and reads no longer show it', async () => {
      const { store, clock } = await open({ retention: { doneEventsMs: DAY } });
      const inbox = store.inbox('alice');
      await runToDone(inbox, 'a');
      clock.advance(DAY - 1);
      expect(await store.prune()).toEqual({ events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false });
      expect(await inbox.getEvent('s', 'a')).not.toBeNull();
      clock.advance(1);
      expect(await store.prune()).toEqual({ events: 1, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false });
      expect(await inbox.getEvent('s', 'a')).toBeNull();
      expect(await inbox.events()).toEqual([]);
      expect((await inbox.stats()).events).toEqual({ pending: 0, running: 0, done: 0, dead: 0 });
      // The tombstone: a late redelivery, alone or in a batch, is still a duplicate, for good.
      clock.advance(365 * DAY);
      expect(await inbox.ingest({ source: 's', sourceId: 'a', payload: { again: true } })).toBe(false);
      expect(await inbox.ingestMany([{ source: 's', sourceId: 'a' }, { source: 's', sourceId: 'b' }])).toEqual([false, true]);
      expect(await store.readyInboxes()).toEqual(['alice']); // for b alone
    });

    it('every kind by its own retention, from its own finish: dead events, sent messages, answered approvals, operator actions', async () => {
      const { store, clock } = await open({
        outboxGapMs: 0,
        maxAttempts: 1,
        retention: { doneEventsMs: 50 * DAY, deadEventsMs: 2 * DAY, sentMessagesMs: 3 * DAY, answeredApprovalsMs: 4 * DAY, actionsMs: 5 * DAY },
      });
      const inbox = store.inbox('alice');
      await inbox.ingestMany([{ source: 's', sourceId: 'dies' }, { source: 's', sourceId: 'done' }]);
      const gen = await lease(inbox, 'W');
      const [dies, done] = await inbox.claimBatch('W', gen);
      expect(await inbox.finish('W', gen, [dies!.id], { error: 'no good', dead: true })).toBe(true);
      expect(await inbox.finish('W', gen, [done!.id], { messages: ['hi'], approvals: [{ id: 'refund', expiresInMs: DAY, action: { cents: 5 } }] })).toBe(true);
      await inbox.release('W', gen);
      clock.advance(1_000); // each later row finishes later: counted from its own finish
      expect(await inbox.dispatch(() => undefined)).toBe(1);
      expect(await inbox.answerApproval('refund', 'yes')).toBe('yes');
      await inbox.recordAction({ actor: 'ops', action: 'redrive', target: 'event 1', result: 'ok' });

      // The dead event died at T0, the rest was sent, answered and done at T0 + 1 s.
      clock.advance(2 * DAY - 1_000 - 1);
      expect(await pruneAll(store)).toMatchObject({ events: 0 });
      clock.advance(1);
      expect(await pruneAll(store)).toMatchObject({ events: 1, messages: 0, approvals: 0, actions: 0 });
      expect((await inbox.stats()).events).toEqual({ pending: 1, running: 0, done: 1, dead: 0 }); // pending: the approval's answer
      clock.advance(DAY + 1_000 - 1);
      expect(await pruneAll(store)).toMatchObject({ events: 0, messages: 0 });
      clock.advance(1);
      expect(await pruneAll(store)).toMatchObject({ messages: 1, approvals: 0 });
      expect((await inbox.stats()).outbox).toMatchObject({ sent: 0 });
      clock.advance(DAY);
      expect(await pruneAll(store)).toMatchObject({ approvals: 1, actions: 0 });
      expect(await store.view('alice').approvals()).toEqual([]);
      clock.advance(DAY);
      expect(await pruneAll(store)).toMatchObject({ actions: 1 });
      expect(await store.view('alice').actions()).toEqual([]);
      // The answer's event outlived its approval row: asking again still reads the stored answer, and stores nothing new.
      expect(await inbox.answerApproval('refund', 'no')).toBe('unknown');
      expect(await inbox.getEvent('approval', 'refund')).toMatchObject({ payload: expect.objectContaining({ answer: 'yes' }) });
    });

    it('nothing pending, running, held, failed-and-not-redriven or open is pruned, however old', async () => {
      const { store, clock } = await open({
        outboxGapMs: DAY,
        retention: { doneEventsMs: 0, deadEventsMs: 0, sentMessagesMs: 0, answeredApprovalsMs: 0, actionsMs: 0 },
      });
      const inbox = store.inbox('alice');
      await inbox.ingestMany(['running', 'retried'].map((sourceId) => ({ source: 's', sourceId })));
      const gen = await lease(inbox, 'W');
      const [first, second] = await inbox.claimBatch('W', gen);
      expect(await inbox.finish('W', gen, [second!.id], { error: 'try again' })).toBe(true);
      await inbox.ingest({ source: 's', sourceId: 'pending' });
      expect(await inbox.finish('W', gen, [], { messages: ['sent, with a failure'], approvals: [{ id: 'open', expiresInMs: 1_000 * DAY, action: {} }] })).toBe(true);
      // It goes out, reported undeliverable on one channel; the next message is held by the gap.
      expect(
        await inbox.dispatch((_body, messages) => ({ failures: [{ messageIds: [messages[0]!.id], channel: 'slack', kind: 'undeliverable', error: 'no address' }] })),
      ).toBe(1);
      expect(await inbox.finish('W', gen, [], { messages: ['held'] })).toBe(true);
      clock.advance(100 * DAY);
      expect(await inbox.acquire('W')).toBe(gen + 1); // a new generation; first stays running (abandoned only at the next claim)
      expect(await pruneAll(store)).toMatchObject({ events: 0, messages: 0, approvals: 0 });
      expect((await inbox.stats()).events).toEqual({ pending: 2, running: 1, done: 0, dead: 0 });
      expect((await inbox.stats()).outbox).toMatchObject({ held: 1, sent: 1, undeliverable: 1 });
      expect((await inbox.stats()).approvalsPending).toBe(1);
      expect(first!.sourceId).toBe('running');
      // Redriven, the failed message may go: its copy is a new held message.
      expect(await inbox.redriveOutbox()).toBe(1);
      expect(await pruneAll(store)).toMatchObject({ messages: 1 });
      expect((await inbox.stats()).outbox).toMatchObject({ held: 2, sent: 0, undeliverable: 0 });
    });

    it('the default keeps everything: prune removes nothing and is done at once', async () => {
      const { store, clock } = await open();
      await runToDone(store.inbox('alice'), 'a');
      clock.advance(10_000 * DAY);
      expect(await store.prune()).toEqual({ events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false });
      expect(await store.inbox('alice').getEvent('s', 'a')).not.toBeNull();
    });

    it('prunes in batches of `limit` across every inbox, each call resuming where the last stopped', async () => {
      const { store, clock } = await open({ retention: { doneEventsMs: 0 } });
      for (const id of ['alice', 'bob', 'carol']) await runToDone(store.inbox(id), 'a', 'b', 'c', 'd', 'e');
      clock.advance(1);
      const total = await pruneAll(store, 4);
      expect(total.events).toBe(15);
      expect(total.calls).toBe(4);
      for (const id of ['alice', 'bob', 'carol']) expect((await store.inbox(id).stats()).events.done).toBe(0);
    });

    it('a kind with no retention is kept however old, while a kind with one goes', async () => {
      const { store, clock } = await open({ outboxGapMs: 0, retention: { doneEventsMs: 0 } });
      const inbox = store.inbox('alice');
      await oneOfEachKind(inbox);
      await inbox.ingest({ source: 's', sourceId: 'dies' });
      const gen = await lease(inbox, 'W');
      const [dies] = await inbox.claimBatch('W', gen);
      expect(await inbox.finish('W', gen, [dies!.id], { error: 'no good', dead: true })).toBe(true);
      clock.advance(1_000 * DAY);
      expect(await pruneAll(store)).toMatchObject({ events: 1, messages: 0, approvals: 0, actions: 0 });
      expect((await inbox.stats()).events).toMatchObject({ done: 0, dead: 1 });
      expect((await inbox.stats()).outbox).toMatchObject({ sent: 1 });
      expect(await store.view('alice').approvals()).toHaveLength(1);
      expect(await store.view('alice').actions()).toHaveLength(1);
    });

    it('one call removes at most `limit` rows, counted across every kind of an inbox and on into the next inbox', async () => {
      const { store, clock } = await open({
        outboxGapMs: 0,
        retention: { doneEventsMs: 0, deadEventsMs: 0, sentMessagesMs: 0, answeredApprovalsMs: 0, actionsMs: 0 },
      });
      for (const id of ['alice', 'bob']) await oneOfEachKind(store.inbox(id));
      clock.advance(1);
      // The first inbox's four rows (one of each kind), then two of the other's.
      const first = await store.prune({ limit: 6 });
      expect([removed(first), first.more]).toEqual([6, true]);
      const second = await store.prune({ limit: 1 });
      expect([removed(second), second.more]).toEqual([1, true]);
      const rest = await pruneAll(store);
      expect(removed(rest)).toBe(1);
      for (const id of ['alice', 'bob']) {
        expect((await store.inbox(id).stats()).events.done).toBe(0);
        expect(await store.view(id).actions()).toEqual([]);
      }
    });

    it('a sweep visits each inbox once and then ends, even while rows keep coming due: an inbox it has passed waits for the next sweep', async () => {
      const { store, clock } = await open({ retention: { doneEventsMs: 0 } });
      const ids = ['alice', 'bob'];
      for (const id of ids) await runToDone(store.inbox(id), 'a');
      clock.advance(1);
      const one = { events: 1, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: true };
      expect(await store.prune({ limit: 1 })).toEqual(one); // the first inbox's row (it may have more)
      expect(await store.prune({ limit: 1 })).toEqual(one); // the first has none left; the second's row
      // A row comes due in each: the sweep goes on with the second inbox only.
      for (const id of ids) await runToDone(store.inbox(id), 'b');
      clock.advance(1);
      expect(await store.prune({ limit: 1 })).toEqual(one);
      expect(await store.prune({ limit: 1 })).toEqual({ ...one, events: 0, more: false });
      const done = await Promise.all(ids.map(async (id) => (await store.inbox(id).stats()).events.done));
      expect(done.sort()).toEqual([0, 1]);
      // The next sweep starts over with every inbox.
      expect(await pruneAll(store)).toMatchObject({ events: 1 });
      for (const id of ids) expect((await store.inbox(id).stats()).events.done).toBe(0);
    });

    it('tombstones hold for every path that stores an event, and on another handle on the same data', async () => {
      const { store, clock, reopen } = await open({ retention: { doneEventsMs: 0 } });
      const inbox = store.inbox('alice');
      await inbox.addTimer({ id: 'remind', due: clock.now(), key: { source: 'reminder', sourceId: 'once' }, payload: {} });
      expect(await inbox.runScheduler()).toBe(1);
      let gen = await lease(inbox, 'W');
      const claimed = await inbox.claimBatch('W', gen);
      expect(await inbox.finish('W', gen, claimed.map((e) => e.id))).toBe(true);
      await inbox.release('W', gen);
      clock.advance(1);
      expect(await pruneAll(store)).toMatchObject({ events: 1 });
      // The same one-off timer again: its fixed key was pruned, and stays taken.
      await inbox.addTimer({ id: 'remind', due: clock.now(), key: { source: 'reminder', sourceId: 'once' }, payload: {} });
      await inbox.runScheduler();
      expect(await inbox.events()).toEqual([]);
      const other = await reopen();
      expect(await other.inbox('alice').ingest({ source: 'reminder', sourceId: 'once' })).toBe(false);
      gen = await lease(inbox, 'W');
      expect(await inbox.claimBatch('W', gen)).toEqual([]);
    });

    it('bad retention and prune options are refused with a clear error', async () => {
      await expectVigilError(open({ retention: { doneEventsMs: -1 } }), 'invalid_options');
      await expectVigilError(open({ retention: { doneEvents: 1_000 } as never }), 'invalid_options');
      await expectVigilError(open({ retention: 'forever' as never }), 'invalid_options');
      const { store } = await open();
      await expectVigilError(store.prune({ limit: 0 }), 'invalid_argument');
      await expectVigilError(store.prune({ limit: 1.5 }), 'invalid_argument');
    });
  });
}
