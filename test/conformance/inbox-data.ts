/**
 * A user's data as a whole (contract.ts: exportInbox, deleteInbox,
 * importInbox): an export is every record of the inbox; a delete removes
 * everything, tombstones included, and is refused under a live lease; an
 * import recreates the inbox exactly, all or nothing. The same on every store.
 */
import { describe, expect, it } from 'vitest';
import type { FakeClock, InboxRecord, Store } from '../../src/index.js';
import { useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const DAY = 86_400_000;

export async function collect(records: AsyncIterable<InboxRecord>): Promise<InboxRecord[]> {
  const all: InboxRecord[] = [];
  for await (const record of records) all.push(record);
  return all;
}

/**
 * An inbox with a row of every kind and status: events pending, retried,
 * running (under an expired lease), done and dead; a tombstone; messages
 * held, sent and failed; approvals open and answered; timers of each kind;
 * memory, a session, settings, pacing, an operator action, model usage
 * priced and unpriced.
 */
export async function buildRichInbox(store: Store, clock: FakeClock, id = 'alice'): Promise<void> {
  const inbox = store.inbox(id);
  await inbox.updateSettings({ contacts: { slack: 'U123' }, outbox: { gapMs: 60_000, dailyLimit: 10 } });
  const ingest = (...sourceIds: string[]) =>
    inbox.ingestMany(sourceIds.map((sourceId, n) => ({ source: 'github', sourceId, payload: { n, text: `é ${sourceId} ✓` } })));
  await ingest('old');
  let gen = await lease(inbox, 'W');
  const [old] = await inbox.claimBatch('W', gen);
  expect(await inbox.finish('W', gen, [old!.id])).toBe(true);
  clock.advance(1);
  while ((await store.prune()).more); // 'old' becomes a tombstone
  expect(await inbox.getEvent('github', 'old')).toBeNull();
  await ingest('dies', 'done', 'retried', 'running');
  const claimed = await inbox.claimBatch('W', gen);
  const byId = Object.fromEntries(claimed.map((e) => [e.sourceId, e.id]));
  expect(await inbox.finish('W', gen, [byId.dies!], { error: 'cannot', dead: true, usage: { inputTokens: 9, outputTokens: 0 } })).toBe(true);
  expect(await inbox.finish('W', gen, [byId.retried!], { error: 'try again' })).toBe(true);
  await ingest('pending');
  expect(
    await inbox.finish('W', gen, [byId.done!], {
      messages: ['sent one', { body: 'sent urgent', urgent: true }],
      approvals: [
        { id: 'refund-1', expiresInMs: DAY, action: { cents: 500 } },
        { id: 'refund-2', expiresInMs: 2 * DAY, action: { cents: 900 } },
      ],
      session: { turns: [{ role: 'user', text: 'hi' }] },
      memory: { set: { name: 'Alice', prefs: { tz: 'Europe/Berlin' } } },
      usage: { inputTokens: 1_200, outputTokens: 300, cacheReadTokens: 40, costUsd: 0.0123, unpriced: true },
    }),
  ).toBe(true);
  // 'running' stays running: its worker "dies" with the lease.
  expect(await inbox.dispatch((_body, messages) => ({ failures: [{ messageIds: [messages[0]!.id], channel: 'email', kind: 'undeliverable', error: 'no address' }] }))).toBe(2);
  expect(await inbox.answerApproval('refund-1', 'yes')).toBe('yes');
  expect(await inbox.finish('W', gen, [], { messages: ['held by the gap'] })).toBe(true);
  await inbox.addTimer({ id: 'digest', cron: '0 9 * * *', tz: 'Europe/Berlin', payload: { kind: 'digest' } });
  await inbox.addTimer({ id: 'poll', every: 3_600_000, due: clock.now() + 1_000, missed: 'each', payload: {} });
  await inbox.addTimer({ id: 'once', due: clock.now(), key: { source: 'reminder', sourceId: 'r1' }, payload: { note: 'x' } });
  expect(await inbox.runScheduler()).toBe(1); // 'once' fires and is done
  await inbox.recordAction({ actor: 'ops@example.com', action: 'expedite', target: 'outbox', result: '0 messages' });
  clock.advance(10_000);
  gen = (await inbox.acquire('W'))!;
  expect(await inbox.release('W', gen)).toBe(true);
}

export function inboxData(target: StoreTarget): void {
  describe(`export, delete and import of an inbox (${target.name})`, () => {
    const open = useStore(target);

    it('export → delete → import restores the inbox exactly: every record, and what the rules do with them', async () => {
      const { store, clock } = await open({ leaseTtlMs: 5_000, retention: { doneEventsMs: 0 } });
      await buildRichInbox(store, clock);
      const before = await collect(store.exportInbox('alice'));
      const types = new Set(before.map((r) => r.type));
      expect([...types].sort()).toEqual(['action', 'approval', 'event', 'lease', 'memory', 'message', 'pacing', 'session', 'settings', 'timer', 'tombstone', 'usage']);
      expect(before.filter((r) => r.type === 'usage')).toEqual([
        { type: 'usage', at: expect.any(Number), inputTokens: 9, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, unpriced: true },
        { type: 'usage', at: expect.any(Number), inputTokens: 1_200, outputTokens: 300, cacheReadTokens: 40, cacheWriteTokens: 0, costUsd: 0.0123, unpriced: true },
      ]);
      const statsBefore = await store.inbox('alice').stats();
      const lastGen = statsBefore.lease!.gen;

      expect(await store.deleteInbox('alice')).toBe(true);
      expect(await store.inboxes()).toEqual([]);
      expect(await store.importInbox('alice', before)).toEqual({ records: before.length });

      expect(await collect(store.exportInbox('alice'))).toEqual(before);
      const inbox = store.inbox('alice');
      expect({ ...(await inbox.stats()), lease: null }).toEqual({ ...statsBefore, lease: null });
      expect(await inbox.getSession()).toEqual({ turns: [{ role: 'user', text: 'hi' }] });
      expect(await inbox.settings()).toEqual({ contacts: { slack: 'U123' }, outbox: { gapMs: 60_000, dailyLimit: 10 } });
      // Keys: a stored one and a tombstoned one are both still duplicates.
      expect(await inbox.ingest({ source: 'github', sourceId: 'done' })).toBe(false);
      expect(await inbox.ingest({ source: 'github', sourceId: 'old' })).toBe(false);
      // The fence carries over: the next lease is a new generation, and the run the old one left is abandoned and retried.
      expect(await store.readyInboxes()).toContain('alice');
      const gen = await lease(inbox, 'V');
      expect(gen).toBe(lastGen + 1);
      const retried = await inbox.claimBatch('V', gen);
      expect(retried.length).toBeGreaterThan(0);
      // The answered approval stands; the open one can still be answered.
      expect(await inbox.answerApproval('refund-1', 'no')).toBe('yes');
      expect(await inbox.answerApproval('refund-2', 'no')).toBe('no');
    });

    it('deleteInbox removes everything, tombstones included: the inbox is not listed and an old key ingests as new', async () => {
      const { store, clock } = await open({ leaseTtlMs: 5_000, retention: { doneEventsMs: 0 } });
      await buildRichInbox(store, clock);
      await store.inbox('bob').ingest({ source: 's', sourceId: 'kept' });
      expect(await store.deleteInbox('alice')).toBe(true);
      expect(await store.inboxes()).toEqual(['bob']);
      expect((await store.listInboxes()).inboxes.map((i) => i.id)).toEqual(['bob']);
      expect(await store.readyInboxes()).toEqual(['bob']);
      expect(await collect(store.exportInbox('alice'))).toEqual([]);
      const alice = store.inbox('alice');
      expect(await alice.stats()).toMatchObject({ events: { pending: 0, running: 0, done: 0, dead: 0 }, timers: 0, lease: null });
      expect(await alice.ingest({ source: 'github', sourceId: 'old' })).toBe(true);
      expect(await alice.ingest({ source: 'github', sourceId: 'done' })).toBe(true);
      expect(await store.deleteInbox('nobody')).toBe(false);
      expect((await store.inbox('bob').stats()).events.pending).toBe(1);
    });

    it('a record of a send after deleteInbox is refused and creates nothing: not listed, no rows, said once', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      const refused: unknown[] = [];
      store.events.on('inbox:write-refused', (payload) => refused.push(payload));
      for (const failing of [false, true]) {
        const gen = await lease(inbox, 'W');
        expect(await inbox.finish('W', gen, [], { messages: ['hello'] })).toBe(true);
        expect(await inbox.release('W', gen)).toBe(true);
        // The delete lands while the batch is being sent: its record (sent, or held again) finds no inbox.
        const sent = inbox.dispatch(async (_body, messages) => {
          expect(await store.deleteInbox('alice')).toBe(true);
          if (failing) throw new Error('the channel is down');
          return { failures: [{ messageIds: [messages[0]!.id], channel: 'slack', kind: 'rejected', error: 'no' }] };
        });
        if (failing) await expect(sent).rejects.toThrow('the channel is down');
        else expect(await sent).toBe(1);
        expect(await store.inboxes()).toEqual([]);
        expect((await store.listInboxes()).inboxes).toEqual([]);
        expect(await collect(store.exportInbox('alice'))).toEqual([]);
      }
      expect(refused).toEqual([
        { inboxId: 'alice', write: 'send record', reason: 'deleted' },
        { inboxId: 'alice', write: 'send record', reason: 'deleted' },
      ]);
    });

    it('deleteInbox is refused with inbox_busy while a live lease is held, and changes nothing; once it lapses, it goes', async () => {
      const { store, clock } = await open({ leaseTtlMs: 5_000 });
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      await lease(inbox, 'W');
      expect((await expectVigilError(store.deleteInbox('alice'), 'inbox_busy')).message).toMatch(/^inbox alice is held by a worker/);
      expect(await store.inboxes()).toEqual(['alice']);
      expect((await inbox.stats()).events.pending).toBe(1);
      clock.advance(5_000); // the lease's last millisecond: the worker still holds it (R3)
      await expectVigilError(store.deleteInbox('alice'), 'inbox_busy');
      clock.advance(1);
      expect(await store.deleteInbox('alice')).toBe(true);
    });

    it('deleteInbox on another handle: this handle sees the inbox gone, and its next write starts it afresh', async () => {
      const { store, reopen } = await open();
      const inbox = store.inbox('alice');
      await inbox.ingest({ source: 's', sourceId: '1' });
      expect((await inbox.stats()).events.pending).toBe(1); // open, and (SQLite) cached
      const other = await reopen();
      expect(await other.deleteInbox('alice')).toBe(true);
      expect(await inbox.getEvent('s', '1')).toBeNull();
      expect(await inbox.ingest({ source: 's', sourceId: '1' })).toBe(true);
      expect((await other.inbox('alice').stats()).events.pending).toBe(1);
    });

    it('importInbox refuses an inbox that holds anything (inbox_exists) and changes nothing there', async () => {
      const { store, clock } = await open({ leaseTtlMs: 5_000, retention: { doneEventsMs: 0 } });
      await buildRichInbox(store, clock);
      const records = await collect(store.exportInbox('alice'));
      await store.inbox('bob').updateSettings({ contacts: { slack: 'U9' } });
      expect((await expectVigilError(store.importInbox('bob', records), 'inbox_exists')).message).toMatch(/^inbox bob already holds data/);
      await expectVigilError(store.importInbox('alice', records), 'inbox_exists');
      expect(await store.inbox('bob').settings()).toEqual({ contacts: { slack: 'U9' } });
      expect((await store.inbox('bob').stats()).events.pending).toBe(0);
      expect(await collect(store.exportInbox('alice'))).toEqual(records);
    });

    it('a bad record is invalid_argument naming it, and nothing of the import is written', async () => {
      const { store, clock } = await open({ leaseTtlMs: 5_000, retention: { doneEventsMs: 0 } });
      await buildRichInbox(store, clock);
      const records = await collect(store.exportInbox('alice'));
      const bad = [...records.slice(0, 5), { type: 'event', source: 'github', sourceId: 'x', status: 'finished' } as unknown as InboxRecord, ...records.slice(5)];
      const error = await expectVigilError(store.importInbox('carol', bad), 'invalid_argument');
      expect(error.message).toMatch(/^record 6 \(event\): status must be one of/);
      const twice = [...records, records.find((r) => r.type === 'event')!];
      expect((await expectVigilError(store.importInbox('carol', twice), 'invalid_argument')).message).toMatch(/appears twice/);
      await expectVigilError(store.importInbox('carol', [{ type: 'memo' } as unknown as InboxRecord]), 'invalid_argument');
      const badUsage = { type: 'usage', at: 1, inputTokens: 2.5, outputTokens: 0 } as unknown as InboxRecord;
      expect((await expectVigilError(store.importInbox('carol', [badUsage]), 'invalid_argument')).message).toMatch(/^record 1 \(usage\): usage\.inputTokens must be/);
      await expectVigilError(store.importInbox('carol', 'not records' as never), 'invalid_argument');
      expect(await store.inboxes()).toEqual(['alice']);
      expect(await collect(store.exportInbox('carol'))).toEqual([]);
    });

    it('an import streams from an async iterable, and wakes what it brings: pending work is ready at once', async () => {
      const { store } = await open();
      async function* records(): AsyncGenerator<InboxRecord> {
        for (let n = 0; n < 1_200; n++) {
          yield { type: 'event', source: 's', sourceId: `e${n}`, payload: { n }, status: 'pending', attempts: 0, error: null, lastError: null, receivedAt: n, finishedAt: null, claimGen: null, lastClaimAt: null };
        }
      }
      expect(await store.importInbox('alice', records())).toEqual({ records: 1_200 });
      expect(await store.readyInboxes()).toEqual(['alice']);
      const events = await store.inbox('alice').events({ limit: 2_000 });
      expect(events.map((e) => e.sourceId)).toEqual(Array.from({ length: 1_200 }, (_, n) => `e${n}`));
    });

    it('export of an inbox never written is empty, creates nothing, and ids are checked', async () => {
      const { store } = await open();
      expect(await collect(store.exportInbox('ghost'))).toEqual([]);
      expect(await store.inboxes()).toEqual([]);
      await expectVigilError(collect(store.exportInbox('../etc')), 'invalid_inbox_id');
      await expectVigilError(store.deleteInbox(''), 'invalid_inbox_id');
      await expectVigilError(store.importInbox('a/b', []), 'invalid_inbox_id');
    });
  });
}
