/**
 * Quotas per inbox (contract/limits.ts, engine/quota.ts): an ingest with a
 * quota is refused whole, nothing stored, past the inbox's pending events,
 * pending bytes or events per minute; a duplicate never is; Vigil's own
 * events never are; the inbox's own `limits` setting overrides each; the
 * minute's count is in the store, shared by every handle on the same data.
 * The same on every store.
 */
import { describe, expect, it } from 'vitest';
import { QuotaExceededError, type Inbox, type InboxLimits } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, lease } from './helpers.js';

const ROOMY: InboxLimits = { pendingEventsPerInbox: 1_000, pendingBytesPerInbox: 1_000_000, eventsPerMinutePerInbox: 1_000 };
/** T0 is 20 s before a minute ends (T0 / 60,000 = 16,666.67). */
const REST_OF_MINUTE_MS = 20_000;

function send(inbox: Inbox, sourceId: string, quota: InboxLimits, payload: unknown = { n: sourceId }): Promise<boolean> {
  return inbox.ingest({ source: 'hook', sourceId, payload }, { quota });
}

async function refused(promise: Promise<unknown>, code: 'inbox_full' | 'rate_limited'): Promise<QuotaExceededError> {
  const error = await expectVigilError(promise, code);
  expect(error).toBeInstanceOf(QuotaExceededError);
  return error as QuotaExceededError;
}

export function quotas(target: StoreTarget): void {
  describe(`quotas per inbox (${target.name})`, () => {
    const open = useStore(target);

    it('past its pending events an inbox refuses inbox_full, storing nothing; another inbox is unaffected', async () => {
      const { store } = await open();
      const quota = { ...ROOMY, pendingEventsPerInbox: 2 };
      const alice = store.inbox('alice');
      expect(await send(alice, 'a1', quota)).toBe(true);
      expect(await send(alice, 'a2', quota)).toBe(true);
      const error = await refused(send(alice, 'a3', quota), 'inbox_full');
      expect(error.retryAfterMs).toBe(60_000);
      expect((await alice.events()).map((e) => e.sourceId)).toEqual(['a1', 'a2']);
      expect(await alice.getEvent('hook', 'a3')).toBeNull();
      expect(await send(store.inbox('bob'), 'b1', quota)).toBe(true);
      expect((await alice.stats()).usage).toMatchObject({ pendingEvents: 2, pendingBytes: 2 * JSON.stringify({ n: 'a1' }).length, eventsThisMinute: 2 });
    });

    it('a duplicate of a stored event is a duplicate, never refused, even when the inbox is full', async () => {
      const { store } = await open();
      const quota = { ...ROOMY, pendingEventsPerInbox: 1 };
      const inbox = store.inbox('alice');
      expect(await send(inbox, 'a1', quota)).toBe(true);
      expect(await send(inbox, 'a1', quota)).toBe(false);
    });

    it('done and dead events free their room (pending means not yet done or dead)', async () => {
      const { store } = await open({ maxAttempts: 1 });
      const quota = { ...ROOMY, pendingEventsPerInbox: 2 };
      const inbox = store.inbox('alice');
      await send(inbox, 'a1', quota);
      await send(inbox, 'a2', quota);
      await refused(send(inbox, 'a3', quota), 'inbox_full');
      const gen = await lease(inbox, 'w');
      const claimed = await inbox.claimBatch('w', gen);
      expect(claimed).toHaveLength(2);
      // Running still counts: the run may fail and the events come back.
      await refused(send(inbox, 'a3', quota), 'inbox_full');
      expect(await inbox.finish('w', gen, [claimed[0]!.id])).toBe(true);
      expect(await send(inbox, 'a3', quota)).toBe(true);
      expect(await inbox.finish('w', gen, [claimed[1]!.id], { error: 'boom', dead: true })).toBe(true);
      expect(await send(inbox, 'a4', quota)).toBe(true);
      expect((await inbox.stats()).usage.pendingEvents).toBe(2);
      // A redrive is Vigil's own: the dead event is pending again even past the limit.
      const dead = (await inbox.events({ status: 'dead' }))[0]!;
      expect(await inbox.redrive(dead.id)).toBe(true);
      expect((await inbox.stats()).usage.pendingEvents).toBe(3);
      await refused(send(inbox, 'a5', quota), 'inbox_full');
    });

    it('past its pending bytes (UTF-8 payload JSON) an inbox refuses inbox_full', async () => {
      const { store } = await open();
      const payload = { text: 'é'.repeat(40) }; // 91 bytes of JSON, 51 characters
      const bytes = Buffer.byteLength(JSON.stringify(payload));
      const quota = { ...ROOMY, pendingBytesPerInbox: 2 * bytes };
      const inbox = store.inbox('alice');
      expect(await send(inbox, 'a1', quota, payload)).toBe(true);
      expect(await send(inbox, 'a2', quota, payload)).toBe(true);
      await refused(send(inbox, 'a3', quota, payload), 'inbox_full');
      expect((await inbox.stats()).usage.pendingBytes).toBe(2 * bytes);
    });

    it('past its events per minute an inbox refuses rate_limited until the next minute, counted in the store for every handle', async () => {
      const { store, reopen, clock } = await open();
      const other = await reopen();
      const quota = { ...ROOMY, eventsPerMinutePerInbox: 2 };
      expect(await send(store.inbox('alice'), 'a1', quota)).toBe(true);
      expect(await send(other.inbox('alice'), 'a2', quota)).toBe(true);
      const error = await refused(send(store.inbox('alice'), 'a3', quota), 'rate_limited');
      expect(error.retryAfterMs).toBe(REST_OF_MINUTE_MS);
      await refused(send(other.inbox('alice'), 'a3', quota), 'rate_limited');
      expect(await send(store.inbox('bob'), 'b1', quota)).toBe(true);
      expect((await store.inbox('alice').stats()).usage.eventsThisMinute).toBe(2);
      clock.advance(REST_OF_MINUTE_MS);
      expect((await store.inbox('alice').stats()).usage.eventsThisMinute).toBe(0);
      expect(await send(other.inbox('alice'), 'a3', quota)).toBe(true);
      expect((await store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['a1', 'a2', 'a3']);
    });

    it('deliveries arriving at once count against each other: exactly the limit is stored', async () => {
      const { store } = await open();
      const quota = { ...ROOMY, pendingEventsPerInbox: 3 };
      const inbox = store.inbox('alice');
      const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => send(inbox, `a${i}`, quota)));
      expect(results.filter((r) => r.status === 'fulfilled' && r.value === true)).toHaveLength(3);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected).toHaveLength(3);
      for (const r of rejected) expect((r.reason as QuotaExceededError).code).toBe('inbox_full');
      expect(await inbox.events()).toHaveLength(3);
    });

    it("Vigil's own events are never refused: a timer's firing and an approval's answer are stored in a full inbox", async () => {
      const { store, clock } = await open();
      const quota = { ...ROOMY, pendingEventsPerInbox: 1 };
      const inbox = store.inbox('alice');
      await inbox.addTimer({ id: 'remind', due: T0 + 1_000 });
      await inbox.requestApproval({ id: 'deploy', expiresInMs: 60_000, action: { deploy: true } });
      expect(await send(inbox, 'a1', quota)).toBe(true);
      await refused(send(inbox, 'a2', quota), 'inbox_full');
      clock.advance(1_000);
      expect(await inbox.runScheduler()).toBe(1);
      expect(await inbox.answerApproval('deploy', 'yes')).toBe('yes');
      expect((await inbox.events()).map((e) => e.source).sort()).toEqual(['approval', 'hook', 'timer']);
      expect((await inbox.stats()).usage.pendingEvents).toBe(3);
    });

    it("an inbox's own limits setting overrides the quota given, each limit alone", async () => {
      const { store } = await open();
      const quota = { ...ROOMY, pendingEventsPerInbox: 1 };
      const inbox = store.inbox('alice');
      await inbox.updateSettings({ limits: { pendingEventsPerInbox: 2 } });
      expect(await send(inbox, 'a1', quota)).toBe(true);
      expect(await send(inbox, 'a2', quota)).toBe(true);
      await refused(send(inbox, 'a3', quota), 'inbox_full');
      await inbox.updateSettings({ limits: { eventsPerMinutePerInbox: 0, pendingEventsPerInbox: null } });
      expect(await inbox.settings()).toEqual({ limits: { eventsPerMinutePerInbox: 0 } });
      // The service's 1 pending event is back, and full comes before the rate.
      await refused(send(inbox, 'a3', quota), 'inbox_full');
      await inbox.updateSettings({ limits: { pendingEventsPerInbox: 10 } });
      await refused(send(inbox, 'a3', quota), 'rate_limited');
    });

    it('an imported inbox holds the usage it was exported with: its unfinished events count against its quotas', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await send(inbox, 'a1', ROOMY, { text: 'é' });
      await send(inbox, 'a2', ROOMY);
      const gen = await lease(inbox, 'w');
      const [first] = await inbox.claimBatch('w', gen);
      await inbox.finish('w', gen, [first!.id]);
      const usage = (await inbox.stats()).usage;
      expect(usage.pendingEvents).toBe(1);
      const records = [];
      for await (const record of store.exportInbox('alice')) records.push(record);
      await store.importInbox('copy', records);
      expect((await store.inbox('copy').stats()).usage).toEqual({ ...usage, eventsThisMinute: 0 });
      await refused(send(store.inbox('copy'), 'c1', { ...ROOMY, pendingEventsPerInbox: 1 }), 'inbox_full');
    });

    it.each([
      ['a negative limit', { pendingEventsPerInbox: -1 }, 'limits.pendingEventsPerInbox'],
      ['a fractional limit', { pendingBytesPerInbox: 1.5 }, 'limits.pendingBytesPerInbox'],
      ['a limit past 2^50', { eventsPerMinutePerInbox: 2 ** 53 - 1 }, 'limits.eventsPerMinutePerInbox'],
      ['an unknown limit', { eventsPerHour: 5 }, 'limits.eventsPerHour'],
    ])('a limits setting with %s is invalid_settings naming it, nothing changed', async (_name, limits, field) => {
      const { store } = await open();
      const error = await expectVigilError(store.inbox('alice').updateSettings({ limits }), 'invalid_settings');
      expect(error.field).toBe(field);
      expect(await store.inbox('alice').settings()).toEqual({});
    });

    it('a quota that is not three whole numbers is invalid_argument, nothing stored', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await expectVigilError(inbox.ingest({ source: 'hook', sourceId: 'x', payload: {} }, { quota: { pendingEventsPerInbox: 1 } as InboxLimits }), 'invalid_argument');
      expect(await store.inboxes()).toEqual([]);
    });
  });
}
