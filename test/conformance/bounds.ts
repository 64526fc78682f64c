/**
 * Bounds on every number that becomes a time or a count (BOUNDS,
 * engine/validate/bounds.ts), the same on every store: past its bound an
 * input is refused naming its field, at its bound it works and every time
 * computed from it still reads back as a date; an import of a state the API
 * cannot produce writes nothing; and one inbox's row out of range (an older
 * version's, or written by hand) never fails a read of the others.
 */
import { describe, expect, it } from 'vitest';
import { BOUNDS, type Inbox, type InboxRecord, type Store } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease } from './helpers.js';

const MAX = BOUNDS.maxDurationMs;
const UNSAFE = 2 ** 53 - 1;

const event = (fields: Partial<Extract<InboxRecord, { type: 'event' }>>): InboxRecord => ({
  type: 'event',
  source: 's',
  sourceId: 'e1',
  payload: {},
  status: 'pending',
  attempts: 0,
  error: null,
  lastError: null,
  receivedAt: T0,
  finishedAt: null,
  claimGen: null,
  lastClaimAt: null,
  ...fields,
});

const running = (claimGen: number) => event({ status: 'running', attempts: 1, claimGen, lastClaimAt: T0 + 1 });

async function summaries(store: Store): Promise<Record<string, string | null>> {
  const { inboxes } = await store.listInboxes();
  return Object.fromEntries(inboxes.map((inbox) => [inbox.id, inbox.unreadable]));
}

async function queue(inbox: Inbox, ...bodies: string[]): Promise<void> {
  const gen = await lease(inbox, 'W');
  expect(await inbox.finish('W', gen, [], { messages: bodies })).toBe(true);
  expect(await inbox.release('W', gen)).toBe(true);
}

function isDate(ms: number | null): boolean {
  return ms !== null && !Number.isNaN(new Date(ms).getTime()) && new Date(ms).toISOString().length > 0;
}

export function bounds(target: StoreTarget): void {
  describe(`bounds on times and counts (${target.name})`, () => {
    const open = useStore(target);

    it.each([
      [{ outbox: { gapMs: UNSAFE } }, 'outbox.gapMs'],
      [{ outbox: { gapMs: MAX + 1 } }, 'outbox.gapMs'],
      [{ outbox: { dailyLimit: UNSAFE } }, 'outbox.dailyLimit'],
      [{ wake: { debounceMs: UNSAFE } }, 'wake.debounceMs'],
      [{ wake: { debounceMs: 1, maxWaitMs: MAX + 1 } }, 'wake.maxWaitMs'],
    ])('settings %j past the bound: invalid_settings naming %s, nothing stored', async (patch, field) => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ outbox: { gapMs: 5 } });
      const error = await expectVigilError(inbox.updateSettings(patch), 'invalid_settings');
      expect(error.field).toBe(field);
      expect(error.message).toContain(`settings ${field} must be a whole number from 0 to `);
      expect(await inbox.settings()).toEqual({ outbox: { gapMs: 5 } });
    });

    it('the largest gap paces the next send ten years out, a date the overview and the outbox view read', async () => {
      const { store } = await open({ outboxGapMs: 0 });
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ outbox: { gapMs: MAX }, wake: { debounceMs: MAX, maxWaitMs: MAX } });
      const sent: string[] = [];
      await queue(inbox, 'one');
      await inbox.dispatch((_channel, messages) => void sent.push(...messages.map((m) => m.body)));
      await queue(inbox, 'two');
      await inbox.dispatch((_channel, messages) => void sent.push(...messages.map((m) => m.body)));
      expect(sent).toEqual(['one']);
      const { nextSendAt } = await store.view('alice').outbox();
      expect(nextSendAt).toBe(T0 + MAX);
      expect(isDate(nextSendAt)).toBe(true);
      await ingestAll(inbox, 'debounced');
      expect(await summaries(store)).toEqual({ alice: null });
      expect((await store.nextWake()).sendAt).toBe(T0 + MAX);
    });

    it('a timer whose every is past ten years (or 2^53-1), or whose due is past the year 9999, is invalid_timer', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      for (const spec of [
        { id: 't', due: T0, every: UNSAFE },
        { id: 't', due: T0, every: MAX + 1 },
        { id: 't', due: BOUNDS.maxTimeMs + 1 },
        { id: 't', due: -UNSAFE },
        { id: 't', due: UNSAFE, every: 1 },
      ]) {
        expect((await expectVigilError(inbox.addTimer(spec), 'invalid_timer')).message).toMatch(/^timer "t": (every|due) must be/);
      }
      expect(await inbox.timers()).toEqual([]);
      expect(await store.inboxes()).toEqual([]);
    });

    it('a timer with the largest every fires, and its next due reads back as a date on the timer and the overview', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      await inbox.addTimer({ id: 'decade', due: T0 + 10, every: MAX });
      await inbox.addTimer({ id: 'last', due: BOUNDS.maxTimeMs });
      clock.set(T0 + 10);
      expect(await inbox.runScheduler()).toBe(1);
      clock.advance(MAX); // the second occurrence, ten years on
      expect(await inbox.runScheduler()).toBe(1);
      const [decade, last] = await inbox.timers();
      expect(decade!.due).toBe(T0 + 10 + 2 * MAX);
      expect(isDate(decade!.due) && isDate(last!.due)).toBe(true);
      const { inboxes } = await store.listInboxes();
      expect(inboxes[0]).toMatchObject({ id: 'alice', unreadable: null, nextTimerAt: T0 + 10 + 2 * MAX });
      expect((await inbox.events()).map((e) => e.sourceId)).toEqual([`decade@${T0 + 10}`, `decade@${T0 + 10 + MAX}`]);
    });

    it('an approval expiring past ten years is invalid_argument naming expiresInMs; the longest expires at a date', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      for (const expiresInMs of [UNSAFE, MAX + 1]) {
        expect((await expectVigilError(inbox.requestApproval({ id: 'a', expiresInMs, action: null }), 'invalid_argument')).field).toBe('expiresInMs');
      }
      await inbox.requestApproval({ id: 'a', expiresInMs: MAX, action: null });
      const [approval] = await store.view('alice').approvals();
      expect(approval!.expiresAt).toBe(T0 + MAX);
      expect(await summaries(store)).toEqual({ alice: null });
    });

    describe('imports refuse states the API cannot produce, naming the record, and write nothing', () => {
      it.each<[string, InboxRecord[], RegExp]>([
        ['a running event claimed above the lease', [{ type: 'lease', gen: 2 }, running(3)], /^record 2 \(event\): claimGen 3 is above the lease's generation 2/],
        ['a lease below a claim before it', [running(4), { type: 'lease', gen: 1 }], /^record 2 \(lease\): gen 1 is below the claimGen 4 of record 1/],
        ['a claim with no lease', [running(1)], /^record 1 \(event\): claimGen 1 is above the lease's generation 0/],
        ['a lease generation of 2^53-1', [{ type: 'lease', gen: UNSAFE }, running(5)], /^record 1 \(lease\): gen must be a whole number from 0 to 1125899906842624/],
        ['a done event with an error', [{ type: 'lease', gen: 1 }, event({ status: 'done', attempts: 1, claimGen: 1, lastClaimAt: T0, finishedAt: T0, error: 'x' })], /^record 2 \(event\): a done event has no error/],
        ['a dead event without one', [{ type: 'lease', gen: 1 }, event({ status: 'dead', attempts: 1, claimGen: 1, lastClaimAt: T0, finishedAt: T0 })], /^record 2 \(event\): a dead event needs the error/],
        ['a running event that finished', [{ type: 'lease', gen: 1 }, { ...running(1), finishedAt: T0 } as InboxRecord], /^record 2 \(event\): a running event has no finishedAt/],
        ['a time past the year 9999', [{ type: 'lease', gen: 1 }, event({ receivedAt: UNSAFE })], /^record 2 \(event\): receivedAt must be within/],
        ['a timer every of 2^53-1', [{ type: 'timer', id: 't', due: T0, every: UNSAFE, cron: null, tz: null, missed: 'coalesce', done: false, payload: {}, key: null, lastSkipped: null }], /^record 1 \(timer\): timer "t": every must be/],
      ])('%s', async (_what, records, message) => {
        const { store } = await open();
        await ingestAll(store.inbox('alice'), 'kept');
        const before = await collect(store.exportInbox('alice'));
        const error = await expectVigilError(store.importInbox('bob', records), 'invalid_argument');
        expect(error.message).toMatch(message);
        expect(await store.inboxes()).toEqual(['alice']);
        expect(await collect(store.exportInbox('bob'))).toEqual([]);
        expect(await collect(store.exportInbox('alice'))).toEqual(before);
      });

      it('the largest lease generation imports, and the agent runs, finishes and releases', async () => {
        const { store, clock } = await open();
        await store.importInbox('alice', [{ type: 'lease', gen: BOUNDS.maxGeneration }, running(BOUNDS.maxGeneration), event({ sourceId: 'e2' })]);
        // Found by the fuzz: SQLite's import left a lease expiring at -(2^53-1), so the running event's stalled wake was no date and the overview failed.
        const [imported] = (await store.listInboxes()).inboxes;
        expect(imported).toMatchObject({ id: 'alice', unreadable: null });
        expect(imported!.readySince === null || !Number.isNaN(new Date(imported!.readySince).getTime())).toBe(true);
        const inbox = store.inbox('alice');
        const gen = await lease(inbox, 'W');
        expect(gen).toBe(BOUNDS.maxGeneration + 1);
        const claimed = await inbox.claimBatch('W', gen);
        expect(claimed.map((e) => e.sourceId)).toEqual(['e2']);
        expect(await inbox.finish('W', gen, claimed.map((e) => e.id))).toBe(true);
        expect(await inbox.release('W', gen)).toBe(true);
        // The running event of the older generation was abandoned to pending by the takeover; after its backoff it runs too.
        clock.advance(60_000);
        const again = await lease(inbox, 'W');
        expect((await inbox.claimBatch('W', again)).map((e) => e.sourceId)).toEqual(['e1']);
        expect(await summaries(store)).toEqual({ alice: null });
      });
    });

    describe("one inbox's row out of range never fails a read of another", () => {
      it.each<[string, 'lease.gen' | 'timers.due', string, string]>([
        ['a lease generation past 2^63 / 2^53', 'lease.gen', '9223372036854775807', 'lease.gen'],
        ['a lease generation of 2^53-1 (its next takeover would leave the safe integers)', 'lease.gen', String(UNSAFE), 'lease.gen'],
        ['a timer due past 2^53', 'timers.due', '9007199254740993', 'nextTimerAt'],
        ['a timer due past the date range but a safe integer', 'timers.due', '8640000000000001', 'nextTimerAt'],
      ])('%s: listInboxes lists the others, and that inbox as unreadable naming the value', async (_what, column, value, field) => {
        const { store, rawWrite } = await open();
        for (const id of ['alice', 'bob', 'carol']) await ingestAll(store.inbox(id), 'e1');
        const bob = store.inbox('bob');
        await bob.release('W', await lease(bob, 'W'));
        await bob.addTimer({ id: 't', due: T0 + 1_000 });
        await rawWrite('bob', column, value);
        const { inboxes, total } = await store.listInboxes();
        expect(total).toBe(3);
        expect(inboxes.map((inbox) => [inbox.id, inbox.unreadable === null ? 'ok' : inbox.unreadable.includes(`(${field} `)])).toEqual([
          ['alice', 'ok'],
          ['bob', true],
          ['carol', 'ok'],
        ]);
        expect(inboxes[0]!.events.pending).toBe(1);
        expect(inboxes[1]!.unreadable).toMatch(/^a stored value is out of range \(/);
        // Every other inbox's own reads go on.
        expect((await store.inbox('carol').stats()).events.pending).toBe(1);
        expect((await store.listInboxes({ search: 'car' })).inboxes.map((inbox) => inbox.unreadable)).toEqual([null]);
      });
    });
  });
}

async function collect(records: AsyncIterable<InboxRecord>): Promise<InboxRecord[]> {
  const all: InboxRecord[] = [];
  for await (const record of records) all.push(record);
  return all;
}
