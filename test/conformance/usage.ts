/**
 * A run's model usage (contract.ts: RunOutcome.usage, Inbox.usage,
 * stats().usage): recorded in the run's fenced finish, once, with any
 * outcome; never by a finish the fence refuses (R3); read back by the
 * inbox's local days and months. The same on every store.
 */
import { describe, expect, it } from 'vitest';
import type { Inbox, Usage } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError, ingestAll, lease, statuses } from './helpers.js';

const TTL = 10_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const USAGE: Usage = { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 50, cacheWriteTokens: 10, costUsd: 0.25 };

/** Ingests one event, runs it and finishes it with `usage` (and `error`, if given): the finish's answer. */
async function runWith(inbox: Inbox, sourceId: string, usage: unknown, error?: string): Promise<boolean> {
  await ingestAll(inbox, sourceId);
  const gen = await lease(inbox, 'W');
  const claimed = await inbox.claimBatch('W', gen);
  const finished = await inbox.finish('W', gen, claimed.map((e) => e.id), { usage: usage as Usage, ...(error === undefined ? {} : { error }) });
  await inbox.release('W', gen);
  return finished;
}

/** All of the inbox's usage, by day, over the days around T0. */
async function days(inbox: Inbox): Promise<unknown[]> {
  return inbox.usage({ from: T0 - 10 * DAY, to: T0 + 10 * DAY, by: 'day' });
}

const bucket = (period: string, fields: Partial<Record<string, number>>): Record<string, unknown> => ({
  period,
  runs: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  unpricedRuns: 0,
  ...fields,
});

export function modelUsage(target: StoreTarget): void {
  describe(`model usage per run (${target.name})`, () => {
    const open = useStore(target);

    it('a fenced finish records its usage once: read by day and month, and in stats as today and this month', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect(await runWith(inbox, 'a', USAGE)).toBe(true);
      // The same finish again is refused (its event is done): nothing more is counted.
      const gen = await lease(inbox, 'W');
      const [a] = await inbox.events();
      expect(await inbox.finish('W', gen, [a!.id], { usage: USAGE })).toBe(false);
      const day = new Date(T0).toISOString().slice(0, 10);
      const one = bucket(day, { runs: 1, inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 50, cacheWriteTokens: 10, costUsd: 0.25 });
      expect(await days(inbox)).toEqual([one]);
      expect(await inbox.usage({ from: T0 - DAY, to: T0 + DAY, by: 'month' })).toEqual([{ ...one, period: day.slice(0, 7) }]);
      const { usage } = await inbox.stats();
      expect(usage.today).toEqual(one);
      expect(usage.month).toEqual({ ...one, period: day.slice(0, 7) });
      expect(usage.pendingEvents).toBe(0); // the quota fields are as they were
    });

    it('a finish refused by the fence (the lease lost mid-run, R3) records nothing', async () => {
      const { store, clock } = await open({ leaseTtlMs: TTL });
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'A');
      const [a] = await inbox.claimBatch('A', gen);
      clock.set(T0 + TTL + 1);
      await lease(inbox, 'B');
      expect(await inbox.finish('A', gen, [a!.id], { usage: USAGE })).toBe(false);
      expect(await inbox.finishAndClaim('A', gen, [a!.id], { usage: USAGE })).toEqual({ finished: false, events: [] });
      expect(await days(inbox)).toEqual([]);
      expect((await inbox.stats()).usage.today.runs).toBe(0);
    });

    it("an error outcome's usage is recorded (its tokens were paid for); usage with no cost counts as an unpriced run", async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect(await runWith(inbox, 'a', { inputTokens: 7, outputTokens: 3 }, 'the model timed out')).toBe(true);
      expect(await statuses(inbox)).toEqual({ a: 'pending' });
      expect(await days(inbox)).toEqual([bucket(new Date(T0).toISOString().slice(0, 10), { runs: 1, inputTokens: 7, outputTokens: 3, unpricedRuns: 1 })]);
    });

    it('finishAndClaim records the usage too; a usage partly priced counts its cost and an unpriced run', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const run = await inbox.acquireAndClaim('A');
      const next = await inbox.finishAndClaim('A', run!.gen, run!.events.map((e) => e.id), { usage: { inputTokens: 5, outputTokens: 1, costUsd: 0.5, unpriced: true } });
      expect(next).toEqual({ finished: true, events: [] });
      expect(await days(inbox)).toEqual([bucket(new Date(T0).toISOString().slice(0, 10), { runs: 1, inputTokens: 5, outputTokens: 1, costUsd: 0.5, unpricedRuns: 1 })]);
    });

    it('an empty usage (all zero) records no row', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      expect(await runWith(inbox, 'a', { inputTokens: 0, outputTokens: 0, costUsd: 0 })).toBe(true);
      expect(await days(inbox)).toEqual([]);
    });

    it('a bad usage is invalid_argument naming the field, and nothing changes', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      await ingestAll(inbox, 'a');
      const gen = await lease(inbox, 'W');
      const [a] = await inbox.claimBatch('W', gen);
      for (const [usage, field] of [
        [{ inputTokens: 1.5, outputTokens: 0 }, 'outcome.usage.inputTokens'],
        [{ inputTokens: 1, outputTokens: -1 }, 'outcome.usage.outputTokens'],
        [{ inputTokens: 1, outputTokens: 1, costUsd: Number.NaN }, 'outcome.usage.costUsd'],
        [{ inputTokens: 1, outputTokens: 1, unpriced: 'yes' }, 'outcome.usage.unpriced'],
        ['lots', 'outcome.usage'],
      ] as const) {
        const error = await expectVigilError(inbox.finish('W', gen, [a!.id], { messages: ['hi'], usage: usage as unknown as Usage }), 'invalid_argument');
        expect(error.message).toContain(field);
      }
      expect(await statuses(inbox)).toEqual({ a: 'running' });
      expect((await inbox.stats()).outbox.held).toBe(0);
      expect(await days(inbox)).toEqual([]);
    });

    it("days and months are the inbox's own, in its timeZone setting: a run at 23:30 local counts on that local day", async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      // 2024-03-31 23:30 in New York (UTC-4) is 2024-04-01 03:30 UTC.
      const lateMarch = Date.UTC(2024, 3, 1, 3, 30);
      clock.set(lateMarch);
      await inbox.updateSettings({ timeZone: 'America/New_York' });
      expect(await runWith(inbox, 'a', { inputTokens: 1, outputTokens: 1, costUsd: 1 })).toBe(true);
      clock.set(lateMarch + HOUR); // 00:30 on April 1st in New York
      expect(await runWith(inbox, 'b', { inputTokens: 2, outputTokens: 2, costUsd: 2 })).toBe(true);
      const window = { from: lateMarch - DAY, to: lateMarch + DAY };
      expect(await inbox.usage({ ...window, by: 'day' })).toEqual([
        bucket('2024-03-31', { runs: 1, inputTokens: 1, outputTokens: 1, costUsd: 1 }),
        bucket('2024-04-01', { runs: 1, inputTokens: 2, outputTokens: 2, costUsd: 2 }),
      ]);
      expect(await inbox.usage({ ...window, by: 'month' })).toEqual([
        bucket('2024-03', { runs: 1, inputTokens: 1, outputTokens: 1, costUsd: 1 }),
        bucket('2024-04', { runs: 1, inputTokens: 2, outputTokens: 2, costUsd: 2 }),
      ]);
      // [from, to): a run at `to` is not in the window.
      expect(await inbox.usage({ from: lateMarch - DAY, to: lateMarch })).toEqual([]);
      const { usage } = await inbox.stats();
      expect(usage.today).toEqual(bucket('2024-04-01', { runs: 1, inputTokens: 2, outputTokens: 2, costUsd: 2 }));
      expect(usage.month).toEqual(bucket('2024-04', { runs: 1, inputTokens: 2, outputTokens: 2, costUsd: 2 }));
      // In UTC both runs are on April 1st.
      await inbox.updateSettings({ timeZone: null });
      expect((await inbox.stats()).usage.today).toEqual(bucket('2024-04-01', { runs: 2, inputTokens: 3, outputTokens: 3, costUsd: 3 }));
    });

    it('an inbox never written has zero usage, and creates nothing by being read', async () => {
      const { store } = await open();
      const inbox = store.inbox('nobody');
      expect(await days(inbox)).toEqual([]);
      expect((await inbox.stats()).usage.month).toEqual(bucket(new Date(T0).toISOString().slice(0, 7), {}));
      expect(await store.inboxes()).toEqual([]);
    });

    it('usage is kept 400 days by default, with no retention set: one ms before, kept; at 400 days, pruned; the run\'s event stays', async () => {
      const { store, clock } = await open();
      const inbox = store.inbox('alice');
      expect(await runWith(inbox, 'a', USAGE)).toBe(true);
      clock.advance(400 * DAY - 1);
      expect(await store.prune()).toEqual({ events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false });
      expect(await inbox.usage({ from: T0, to: T0 + 1 })).toHaveLength(1);
      clock.advance(1);
      expect(await store.prune()).toEqual({ events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 1, more: false });
      expect(await inbox.usage({ from: T0, to: T0 + 1 })).toEqual([]);
      expect(await statuses(inbox)).toEqual({ a: 'done' });
    });

    it('retention.usageMs sets how long usage is kept, in batches of `limit` like every kind; a bad one is invalid_options', async () => {
      const { store, clock } = await open({ retention: { usageMs: DAY } });
      const inbox = store.inbox('alice');
      for (const id of ['a', 'b', 'c']) expect(await runWith(inbox, id, USAGE)).toBe(true);
      clock.advance(DAY);
      expect(await store.prune({ limit: 2 })).toEqual({ events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 2, more: true });
      expect(await store.prune({ limit: 2 })).toEqual({ events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 1, more: false });
      expect(await days(inbox)).toEqual([]);
      await expectVigilError(open({ retention: { usageMs: -1 } }), 'invalid_options');
    });

    it('a bad query is invalid_argument naming the field', async () => {
      const { store } = await open();
      const inbox = store.inbox('alice');
      for (const [query, says] of [
        [{ from: 'yesterday', to: T0 }, 'from'],
        [{ from: T0, to: 1.5 }, 'to'],
        [{ from: T0 + 1, to: T0 }, 'from'],
        [{ from: T0, to: T0, by: 'week' }, 'by'],
        [{ from: T0, to: T0 + 401 * DAY, by: 'day' }, '400 days'],
        [{ from: T0, to: T0 + 1_101 * DAY, by: 'month' }, '1100 days'],
        [null, 'usage takes'],
      ] as const) {
        const error = await expectVigilError(inbox.usage(query as never), 'invalid_argument');
        expect(error.message).toContain(says);
      }
      expect(await inbox.usage({ from: T0, to: T0 + 1_100 * DAY, by: 'month' })).toEqual([]);
    });
  });
}
