/**
 * What the engine tells the world, the same on every store: the domain
 * events logs and metrics subscribe to (Store.events), each carrying what
 * its figure needs so nothing is read again for it, and the wake-up hints
 * (Store.subscribe) a worker pool and a dispatcher follow.
 */
import { describe, expect, it } from 'vitest';
import type { RuntimeEventMap, RuntimeEventName } from '../../src/events.js';
import type { Store, WakeKind } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { lease } from './helpers.js';

const DAY = 86_400_000;

/** Every event of these names the store emits, in order. */
function record<K extends RuntimeEventName>(store: Store, ...names: K[]): Array<{ name: K; payload: RuntimeEventMap[K] }> {
  const seen: Array<{ name: K; payload: RuntimeEventMap[K] }> = [];
  for (const name of names) store.events.on(name, (payload) => seen.push({ name, payload }));
  return seen;
}

/** Hints heard through subscribe, once the store had a moment to deliver them (PostgreSQL: LISTEN/NOTIFY). */
async function hintsOf(store: Store): Promise<{ seen: Array<[string, WakeKind]>; settle(expected: number): Promise<void> }> {
  const seen: Array<[string, WakeKind]> = [];
  await store.subscribe((inboxId, kind) => seen.push([inboxId, kind]));
  return {
    seen,
    async settle(expected) {
      for (let i = 0; i < 200 && seen.length < expected; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 50)); // and nothing more arrives
    },
  };
}

export function eventsAndHints(target: StoreTarget): void {
  describe(`domain events and wake-up hints (${target.name})`, () => {
    const open = useStore(target);

    it('event:ingested once per event handed in, stored or duplicate, with its key', async () => {
      const { store } = await open();
      const seen = record(store, 'event:ingested');
      await store.inbox('alice').ingest({ source: 's', sourceId: '1' });
      await store.inbox('alice').ingestMany([
        { source: 's', sourceId: '1' },
        { source: 's', sourceId: '2' },
      ]);
      expect(seen.map((e) => e.payload)).toEqual([
        { inboxId: 'alice', source: 's', sourceId: '1', stored: true },
        { inboxId: 'alice', source: 's', sourceId: '1', stored: false },
        { inboxId: 'alice', source: 's', sourceId: '2', stored: true },
      ]);
    });

    it('lease:acquired for each new generation, not for a renewal; takeover when an older generation left events running', async () => {
      const { store, clock } = await open({ leaseTtlMs: 1_000 });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      const seen = record(store, 'lease:acquired');
      const gen = await lease(inbox, 'A');
      await lease(inbox, 'A'); // renewal
      await inbox.claimBatch('A', gen); // A dies holding the batch
      clock.advance(1_001);
      await lease(inbox, 'B');
      expect(seen.map((e) => e.payload)).toEqual([
        { inboxId: 'alice', gen: 1, takeover: false },
        { inboxId: 'alice', gen: 2, takeover: true },
      ]);
    });

    it('events:dead names each event a claim parks after too many attempts, with its attempts and last error; and a dead-at-once finish', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 'mail', sourceId: 'poison' });
      const seen = record(store, 'events:dead');
      const gen = await lease(inbox, 'W');
      const [event] = await inbox.claimBatch('W', gen);
      await inbox.finish('W', gen, [event!.id], { error: 'it broke' });
      expect(await inbox.claimBatch('W', gen)).toEqual([]);
      expect(seen.map((e) => e.payload)).toEqual([
        { inboxId: 'alice', error: 'too many attempts', events: [{ id: event!.id, source: 'mail', sourceId: 'poison', attempts: 1, lastError: 'it broke' }] },
      ]);
      await inbox.ingest({ source: 'mail', sourceId: 'rejected' });
      const [second] = await inbox.claimBatch('W', gen);
      await inbox.finish('W', gen, [second!.id], { error: 'screened out', dead: true });
      expect(seen[1]!.payload).toEqual({
        inboxId: 'alice',
        error: 'screened out',
        events: [{ id: second!.id, source: null, sourceId: null, attempts: null, lastError: 'screened out' }],
      });
    });

    it('scheduler:fired, approval:answered, outbox:expedited and outbox:dispatched carry their counts', async () => {
      const { store, clock } = await open({ outboxGapMs: 1_000_000 });
      const inbox = store.inbox('alice');
      const seen = record(store, 'scheduler:fired', 'approval:answered', 'outbox:expedited', 'outbox:dispatched');
      await inbox.addTimer({ id: 't', due: T0 });
      await inbox.requestApproval({ id: 'a', expiresInMs: 10, action: 'x' });
      expect(await inbox.runScheduler()).toBe(1);
      expect(await inbox.answerApproval('a', 'yes')).toBe('yes');
      expect(await inbox.answerApproval('a', 'no')).toBe('yes');
      expect(await inbox.answerApproval('never', 'no')).toBe('unknown');
      const gen = await lease(inbox, 'W');
      const ids = (await inbox.claimBatch('W', gen)).map((e) => e.id);
      await inbox.finish('W', gen, ids, { messages: ['one', 'two', { body: 'now', urgent: true }] });
      expect(await inbox.dispatch(() => undefined)).toBe(3); // the gap has not been used yet: all three
      await inbox.finish('W', gen, [], { messages: ['later'] });
      expect(await inbox.dispatch(() => undefined)).toBe(0); // paced
      expect(await inbox.expediteOutbox()).toBe(1);
      clock.advance(1);
      expect(await inbox.dispatch(() => undefined, { atMostOnce: true })).toBe(1);
      expect(seen.map((e) => [e.name, e.payload])).toEqual([
        ['scheduler:fired', { inboxId: 'alice', due: 1 }],
        ['approval:answered', { inboxId: 'alice', approvalId: 'a', outcome: 'yes' }],
        ['approval:answered', { inboxId: 'alice', approvalId: 'a', outcome: 'yes' }],
        ['outbox:dispatched', { inboxId: 'alice', count: 3, held: 0 }],
        ['outbox:expedited', { inboxId: 'alice', count: 1 }],
        ['outbox:dispatched', { inboxId: 'alice', count: 1, held: 0 }],
      ]);
    });

    it("hints: 'work' when events, timers, approvals and answers land or an event is redriven; 'outbox' when a finish queues messages or they are expedited; nothing for what changes neither", async () => {
      const { store } = await open({ maxAttempts: 1 });
      const hints = await hintsOf(store);
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      await inbox.ingest({ source: 's', sourceId: '1' }); // duplicate: nothing
      await inbox.addTimer({ id: 't', due: T0 + 1_000_000 });
      await inbox.requestApproval({ id: 'a', expiresInMs: 1_000_000, action: 'x' });
      await inbox.answerApproval('a', 'yes');
      const gen = await lease(inbox, 'W');
      const ids = (await inbox.claimBatch('W', gen)).map((e) => e.id);
      await inbox.finish('W', gen, ids, {}); // nothing queued: nothing
      await inbox.finish('W', gen, [], { messages: ['hi'] });
      await inbox.expediteOutbox();
      await inbox.ingest({ source: 's', sourceId: 'poison' });
      const [poison] = await inbox.claimBatch('W', gen);
      await inbox.finish('W', gen, [poison!.id], { error: 'bad', dead: true });
      await inbox.redrive(poison!.id);
      await hints.settle(8);
      expect(hints.seen).toEqual([
        ['alice', 'work'],
        ['alice', 'work'],
        ['alice', 'work'],
        ['alice', 'work'],
        ['alice', 'outbox'],
        ['alice', 'outbox'],
        ['alice', 'work'],
        ['alice', 'work'],
      ]);
    });

    it("hints: 'work' for an ingestMany that stored something and after a settings change, 'outbox' for a redrive of failed messages and after a settings change; nothing for calls that changed nothing", async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      const gen = await lease(inbox, 'W');
      await inbox.finish('W', gen, [], { messages: ['hi'] });
      await inbox.dispatch((_body, messages) => ({ failures: [{ messageIds: [messages[0]!.id], channel: 'slack', kind: 'undeliverable', error: 'no address' }] }));
      const hints = await hintsOf(store);
      await inbox.ingestMany([{ source: 's', sourceId: '1' }]);
      await inbox.ingestMany([{ source: 's', sourceId: '1' }]); // a duplicate: nothing
      await inbox.ingestMany([]); // nothing
      expect(await inbox.expediteOutbox()).toBe(0); // nothing held: nothing
      expect(await inbox.redriveOutbox({ channel: 'email' })).toBe(0); // no such failure: nothing
      expect(await inbox.redriveOutbox({ channel: 'slack' })).toBe(1);
      expect(await inbox.redriveOutbox()).toBe(0); // redriven already: nothing
      await inbox.updateSettings({ outbox: { gapMs: 5 } });
      await hints.settle(4);
      expect(hints.seen).toEqual([
        ['alice', 'work'],
        ['alice', 'outbox'],
        ['alice', 'work'],
        ['alice', 'outbox'],
      ]);
    });

    it('no event for what did not happen: a pass with nothing due, an expedite with nothing held, a dead-at-once finish of no events', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      const seen = record(store, 'scheduler:fired', 'outbox:expedited', 'events:dead');
      await inbox.addTimer({ id: 'later', due: T0 + 1_000 });
      expect(await inbox.runScheduler()).toBe(0);
      expect(await inbox.expediteOutbox()).toBe(0);
      const gen = await lease(inbox, 'W');
      expect(await inbox.finish('W', gen, [], { error: 'nothing to kill', dead: true })).toBe(true);
      expect(seen).toEqual([]);
    });

    it('outbox:failed for each channel that did not take messages, with what it reported; none for a send that reported nothing', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      const seen = record(store, 'outbox:dispatched', 'outbox:failed');
      const gen = await lease(inbox, 'W');
      await inbox.finish('W', gen, [], { messages: ['one', 'two'] });
      await inbox.dispatch((_body, messages) => ({
        failures: [
          { messageIds: [messages[1]!.id], channel: 'email', kind: 'rejected', error: 'bounced' },
          { messageIds: [messages[0]!.id, messages[1]!.id], channel: 'slack', kind: 'undeliverable', error: 'no contacts.slack' },
        ],
      }));
      const [one, two] = (await store.view('alice').outbox()).sent.map((m) => m.id).sort((a, b) => a - b);
      await inbox.finish('W', gen, [], { messages: ['three'] });
      await inbox.dispatch(() => undefined);
      await inbox.finish('W', gen, [], { messages: ['four'] });
      await inbox.dispatch(() => undefined, { atMostOnce: true });
      expect(seen.map((e) => [e.name, e.payload])).toEqual([
        ['outbox:dispatched', { inboxId: 'alice', count: 2, held: 0 }],
        ['outbox:failed', { inboxId: 'alice', channel: 'email', kind: 'rejected', messageIds: [two], error: 'bounced' }],
        ['outbox:failed', { inboxId: 'alice', channel: 'slack', kind: 'undeliverable', messageIds: [one, two], error: 'no contacts.slack' }],
        ['outbox:dispatched', { inboxId: 'alice', count: 1, held: 0 }],
        ['outbox:dispatched', { inboxId: 'alice', count: 1, held: 0 }],
      ]);
    });

    it('at most once, outbox:dispatched is emitted before the send runs: a send that throws leaves it said, and the messages sent', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      const order: string[] = [];
      store.events.on('outbox:dispatched', ({ count, held }) => order.push(`dispatched ${count}, ${held} held`));
      const gen = await lease(inbox, 'W');
      await inbox.finish('W', gen, [], { messages: ['a', 'b'] });
      await expect(
        inbox.dispatch(
          () => {
            order.push('send');
            throw new Error('channel down');
          },
          { atMostOnce: true },
        ),
      ).rejects.toThrow('channel down');
      expect(order).toEqual(['dispatched 2, 0 held', 'send']);
      expect((await inbox.stats()).outbox).toMatchObject({ held: 0, sent: 2 });
    });

    it('store:pruned for each prune call that removed something, with its counts, whichever kind it was; none for a call that removed nothing', async () => {
      const { store, clock } = await open({
        outboxGapMs: 0,
        retention: { doneEventsMs: 100 * DAY, deadEventsMs: DAY, sentMessagesMs: 2 * DAY, answeredApprovalsMs: 3 * DAY, actionsMs: 4 * DAY },
      });
      const inbox = store.inbox('alice');
      await inbox.ingestMany([{ source: 's', sourceId: 'dies' }, { source: 's', sourceId: 'done' }]);
      const gen = await lease(inbox, 'W');
      const [dies, done] = await inbox.claimBatch('W', gen);
      expect(await inbox.finish('W', gen, [dies!.id], { error: 'no good', dead: true })).toBe(true);
      expect(await inbox.finish('W', gen, [done!.id], { messages: ['hi'], approvals: [{ id: 'refund', expiresInMs: DAY, action: {} }] })).toBe(true);
      await inbox.release('W', gen);
      expect(await inbox.dispatch(() => undefined)).toBe(1);
      expect(await inbox.answerApproval('refund', 'yes')).toBe('yes');
      await inbox.recordAction({ actor: 'ops', action: 'redrive', target: 'event 1', result: 'ok' });
      const seen = record(store, 'store:pruned');
      const none = { events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false };
      expect(await store.prune()).toEqual(none);
      for (const kind of ['events', 'messages', 'approvals', 'actions'] as const) {
        clock.advance(DAY);
        expect(await store.prune()).toEqual({ ...none, [kind]: 1 });
        expect(await store.prune()).toEqual(none);
      }
      expect(seen.map((e) => e.payload)).toEqual([
        { ...none, events: 1 },
        { ...none, messages: 1 },
        { ...none, approvals: 1 },
        { ...none, actions: 1 },
      ]);
    });

    it('inbox:deleted for a delete that removed an inbox, none when there was none; inbox:imported with its count, and the import wakes workers and the dispatcher', async () => {
      const { store } = await open();
      await store.inbox('alice').ingest({ source: 's', sourceId: '1' });
      const records = [];
      for await (const r of store.exportInbox('alice')) records.push(r);
      const seen = record(store, 'inbox:deleted', 'inbox:imported');
      expect(await store.deleteInbox('alice')).toBe(true);
      expect(await store.deleteInbox('nobody')).toBe(false);
      const hints = await hintsOf(store);
      expect(await store.importInbox('alice', records)).toEqual({ records: records.length });
      await hints.settle(2);
      expect(seen).toEqual([
        { name: 'inbox:deleted', payload: { inboxId: 'alice' } },
        { name: 'inbox:imported', payload: { inboxId: 'alice', records: records.length } },
      ]);
      // Both kinds, and nothing else (a store may also hint work when it finds the imported events ready).
      expect(new Set(hints.seen.map(([inboxId, kind]) => `${inboxId} ${kind}`))).toEqual(new Set(['alice work', 'alice outbox']));
    });

    it('a listener that throws breaks neither the call that emitted nor the listeners after it', async () => {
      const { store } = await open();
      const errors: unknown[] = [];
      store.events.onListenerError = (error) => errors.push(error);
      store.events.on('event:ingested', () => {
        throw new Error('listener bug');
      });
      const after = record(store, 'event:ingested');
      await store.subscribe(() => {
        throw new Error('hint listener bug');
      });
      expect(await store.inbox('alice').ingest({ source: 's', sourceId: '1' })).toBe(true);
      expect(after).toHaveLength(1);
      expect(errors).toEqual([new Error('listener bug')]);
    });
  });
}
