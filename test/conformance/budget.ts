/**
 * A budget per user (settings `budget`, engine/budget.ts): spent, the inbox
 * is paused for spend until the person's next local day or month (across
 * DST), or until the budget is raised; its events wait, never counted as
 * attempts; the person hears of it once per period. The same on every store.
 */
import { describe, expect, it } from 'vitest';
import type { HeldMessage, Inbox, InboxSettings, Usage } from '../../src/index.js';
import { useStore, type StoreTarget, type Fixture } from './harness.js';
import { ingestAll } from './helpers.js';

const at = (iso: string): number => Date.parse(iso);
const spent = (costUsd: number | undefined, tokens = 10): Usage => ({ inputTokens: tokens, outputTokens: 0, ...(costUsd === undefined ? {} : { costUsd }) });

/** One run of whatever is claimable, reporting `usage`; the events it ran (none: nothing was claimed). */
async function runOnce(inbox: Inbox, usage: Usage): Promise<string[]> {
  const run = await inbox.acquireAndClaim('W');
  if (run === null || run.events.length === 0) return [];
  const next = await inbox.finishAndClaim('W', run.gen, run.events.map((e) => e.id), { usage });
  if (next.finished && next.events.length > 0) await inbox.finish('W', run.gen, next.events.map((e) => e.id));
  if (next.events.length > 0) await inbox.release('W', run.gen);
  return [...run.events, ...next.events].map((e) => e.sourceId);
}

/** The messages a dispatch sends now. */
async function sent(inbox: Inbox): Promise<HeldMessage[]> {
  const messages: HeldMessage[] = [];
  await inbox.dispatch((_body, batch) => void messages.push(...batch));
  return messages;
}

export function budget(target: StoreTarget): void {
  describe(`a budget per user: paused for spend (${target.name})`, () => {
    const open = useStore(target);

    async function budgeted(settings: InboxSettings, start: string, options = {}): Promise<Fixture & { inbox: Inbox }> {
      const fixture = await open({ outboxGapMs: 0, ...options });
      fixture.clock.set(at(start));
      const inbox = fixture.store.inbox('alice');
      await inbox.updateSettings(settings);
      return { ...fixture, inbox };
    }

    async function attempts(inbox: Inbox): Promise<Record<string, [string, number]>> {
      const rows = await inbox.events({ limit: 100 });
      return Object.fromEntries(rows.map((row) => [row.sourceId, [row.status, row.attempts]]));
    }

    it('spent: paused until the next local day (Europe/Berlin, a 23-hour DST day after it); events wait with no attempt counted; one urgent notice', async () => {
      const { store, clock, inbox } = await budgeted({ timeZone: 'Europe/Berlin', budget: { costPerDayUsd: 1 } }, '2026-03-28T20:00:00Z');
      await ingestAll(inbox, 'a', 'b');
      // Both events run in one batch; the run that spends the budget is the last one.
      expect(await runOnce(inbox, spent(1.25))).toEqual(['a', 'b']);
      const stats = await inbox.stats();
      expect(stats.budget).toEqual({ pausedUntil: at('2026-03-28T23:00:00Z'), reason: 'costPerDayUsd', left: { tokensToday: null, costTodayUsd: 0, costMonthUsd: null } });
      const notices = await sent(inbox);
      expect(notices).toHaveLength(1);
      expect(notices[0]!.urgent).toBe(true);
      expect(notices[0]!.body).toContain('budget is spent');
      expect(notices[0]!.body).toMatch(/29 March 2026 at 00:00 \(Europe\/Berlin\)/);

      await ingestAll(inbox, 'c');
      expect(await runOnce(inbox, spent(0))).toEqual([]);
      expect(await store.readyInboxes()).toEqual([]);
      clock.set(at('2026-03-28T22:59:59.999Z'));
      expect(await store.readyInboxes()).toEqual([]);
      expect(await runOnce(inbox, spent(0))).toEqual([]);
      expect((await attempts(inbox)).c).toEqual(['pending', 0]);

      clock.set(at('2026-03-28T23:00:00Z')); // midnight in Berlin
      expect(await store.readyInboxes()).toEqual(['alice']);
      expect((await inbox.stats()).budget?.pausedUntil).toBeNull();
      // The next day is 23 hours long: spent again, it ends at 22:00 UTC.
      expect(await runOnce(inbox, spent(1))).toEqual(['c']);
      expect((await inbox.stats()).budget?.pausedUntil).toBe(at('2026-03-29T22:00:00Z'));
      expect(await sent(inbox)).toHaveLength(1); // a new period: a new notice
    });

    it('the finish that spends the budget claims nothing more in the same step: the next event waits and the lease is let go', async () => {
      const { inbox } = await budgeted({ budget: { costPerDayUsd: 1 } }, '2026-01-15T10:00:00Z', { batchLimit: 1 });
      await ingestAll(inbox, 'a', 'b');
      const run = (await inbox.acquireAndClaim('W'))!;
      expect(run.events.map((e) => e.sourceId)).toEqual(['a']);
      const next = await inbox.finishAndClaim('W', run.gen, [run.events[0]!.id], { usage: spent(1) });
      expect(next).toEqual({ finished: true, events: [] });
      expect(await inbox.acquire('X')).not.toBeNull(); // released: another worker may take the inbox
      expect((await attempts(inbox)).b).toEqual(['pending', 0]);
    });

    it('a month budget pauses until the local month ends (America/New_York, across the November DST change)', async () => {
      const { store, clock, inbox } = await budgeted({ timeZone: 'America/New_York', budget: { costPerMonthUsd: 5 } }, '2026-11-20T12:00:00Z');
      await ingestAll(inbox, 'a');
      await runOnce(inbox, spent(5));
      expect((await inbox.stats()).budget).toMatchObject({ pausedUntil: at('2026-12-01T05:00:00Z'), reason: 'costPerMonthUsd' });
      await ingestAll(inbox, 'b');
      clock.set(at('2026-12-01T04:59:59.999Z'));
      expect(await store.readyInboxes()).toEqual([]);
      clock.set(at('2026-12-01T05:00:00Z'));
      expect(await runOnce(inbox, spent(1))).toEqual(['b']);
    });

    it('a raised budget resumes at once, and so does a removed one; a lowered one pauses', async () => {
      const { store, inbox } = await budgeted({ budget: { costPerDayUsd: 1 } }, '2026-01-15T10:00:00Z');
      await ingestAll(inbox, 'a');
      await runOnce(inbox, spent(1));
      await ingestAll(inbox, 'b');
      expect(await store.readyInboxes()).toEqual([]);
      await inbox.updateSettings({ budget: { costPerDayUsd: 2 } });
      expect((await inbox.stats()).budget).toEqual({ pausedUntil: null, reason: null, left: { tokensToday: null, costTodayUsd: 1, costMonthUsd: null } });
      expect(await store.readyInboxes()).toEqual(['alice']);
      expect(await runOnce(inbox, spent(1))).toEqual(['b']);
      await ingestAll(inbox, 'c');
      expect(await store.readyInboxes()).toEqual([]);
      await inbox.updateSettings({ budget: null });
      expect((await inbox.stats()).budget).toBeNull();
      expect(await runOnce(inbox, spent(1))).toEqual(['c']);
      await ingestAll(inbox, 'd');
      await inbox.updateSettings({ budget: { costPerDayUsd: 2.5 } }); // 3 spent today
      expect(await runOnce(inbox, spent(0))).toEqual([]);
    });

    it('a paused inbox never counts attempts nor kills its events, however often it is claimed; timers still fire into events that wait', async () => {
      const { store, clock, inbox } = await budgeted({ budget: { costPerDayUsd: 1 } }, '2026-01-15T10:00:00Z', { maxAttempts: 1 });
      await ingestAll(inbox, 'a');
      await runOnce(inbox, spent(2));
      await ingestAll(inbox, 'b');
      await inbox.addTimer({ id: 'tick', due: at('2026-01-15T11:00:00Z'), payload: {} });
      for (let i = 0; i < 5; i++) {
        const gen = (await inbox.acquire('W'))!;
        expect(await inbox.claimBatch('W', gen)).toEqual([]);
        await inbox.release('W', gen);
      }
      clock.set(at('2026-01-15T11:00:00Z'));
      expect(await store.readyInboxes()).toEqual(['alice']); // the timer is due
      expect(await inbox.runScheduler()).toBe(1);
      expect(await store.readyInboxes()).toEqual([]);
      const rows = await attempts(inbox);
      expect(rows.b).toEqual(['pending', 0]);
      expect(Object.values(rows).filter(([status]) => status === 'dead')).toEqual([]);
      expect(Object.values(rows).filter(([status, n]) => status === 'pending' && n === 0)).toHaveLength(2);
    });

    it('one notice per period: raised, then spent again the same day, the person is not told twice', async () => {
      const { clock, inbox } = await budgeted({ budget: { costPerDayUsd: 1 } }, '2026-01-15T10:00:00Z');
      await ingestAll(inbox, 'a');
      await runOnce(inbox, spent(1));
      expect(await sent(inbox)).toHaveLength(1);
      await inbox.updateSettings({ budget: { costPerDayUsd: 2 } });
      await ingestAll(inbox, 'b');
      await runOnce(inbox, spent(1));
      expect((await inbox.stats()).budget?.reason).toBe('costPerDayUsd');
      expect(await sent(inbox)).toHaveLength(0);
      clock.set(at('2026-01-16T08:00:00Z'));
      await ingestAll(inbox, 'c');
      await runOnce(inbox, spent(3));
      expect(await sent(inbox)).toHaveLength(1);
    });

    it('minimumLeftUsd: a run never starts with less than it left', async () => {
      const { inbox } = await budgeted({ budget: { costPerDayUsd: 1, minimumLeftUsd: 0.3 } }, '2026-01-15T10:00:00Z');
      await ingestAll(inbox, 'a');
      await runOnce(inbox, spent(0.6));
      expect((await inbox.stats()).budget?.pausedUntil).toBeNull();
      expect(await inbox.runBudget()).toEqual({ costLeftUsd: 0.4, tokensLeft: null });
      await ingestAll(inbox, 'b');
      await runOnce(inbox, spent(0.15));
      expect((await inbox.stats()).budget).toMatchObject({ pausedUntil: at('2026-01-16T00:00:00Z'), reason: 'minimumLeftUsd' });
    });

    it('unpriced usage counts as no cost, but its tokens count against tokensPerDay', async () => {
      const { inbox } = await budgeted({ budget: { costPerDayUsd: 0.01, tokensPerDay: 1_000 } }, '2026-01-15T10:00:00Z');
      await ingestAll(inbox, 'a');
      await runOnce(inbox, spent(undefined, 400));
      expect((await inbox.stats()).budget).toEqual({ pausedUntil: null, reason: null, left: { tokensToday: 600, costTodayUsd: 0.01, costMonthUsd: null } });
      await ingestAll(inbox, 'b');
      await runOnce(inbox, { inputTokens: 300, outputTokens: 200, cacheReadTokens: 100, unpriced: true });
      expect((await inbox.stats()).budget).toMatchObject({ pausedUntil: at('2026-01-16T00:00:00Z'), reason: 'tokensPerDay' });
      expect(await inbox.runBudget()).toEqual({ costLeftUsd: 0.01, tokensLeft: 0 });
    });

    it("the store's default budget applies to every inbox, each field of an inbox's own overriding it; none: no budget", async () => {
      const { store } = await budgeted({}, '2026-01-15T10:00:00Z', { budget: { costPerDayUsd: 1, tokensPerDay: 50 } });
      const bob = store.inbox('bob');
      await bob.updateSettings({ budget: { costPerDayUsd: 10 } });
      for (const box of [store.inbox('alice'), bob]) {
        await ingestAll(box, 'a');
        await runOnce(box, spent(2, 20));
      }
      expect((await store.inbox('alice').stats()).budget?.reason).toBe('costPerDayUsd');
      expect((await bob.stats()).budget).toEqual({ pausedUntil: null, reason: null, left: { tokensToday: 30, costTodayUsd: 8, costMonthUsd: null } });
      const other = await open();
      const carol = other.store.inbox('carol');
      await ingestAll(carol, 'a');
      await runOnce(carol, spent(100));
      expect((await carol.stats()).budget).toBeNull();
      expect(await carol.runBudget()).toBeNull();
    });

    it('a budget must be whole tokens and non-negative amounts: invalid_settings names the field; nothing changes', async () => {
      const { inbox } = await budgeted({ budget: { costPerDayUsd: 1 } }, '2026-01-15T10:00:00Z');
      for (const [patch, field] of [
        [{ budget: { costPerDayUsd: -1 } }, 'budget.costPerDayUsd'],
        [{ budget: { tokensPerDay: 1.5 } }, 'budget.tokensPerDay'],
        [{ budget: { costPerMonthUsd: '5' } }, 'budget.costPerMonthUsd'],
        [{ budget: { minimumLeftUsd: Number.NaN } }, 'budget.minimumLeftUsd'],
        [{ budget: { costPerWeekUsd: 1 } }, 'budget.costPerWeekUsd'],
        [{ budget: 5 }, 'budget'],
      ] as const) {
        await expect(inbox.updateSettings(patch)).rejects.toMatchObject({ code: 'invalid_settings', field });
      }
      expect(await inbox.settings()).toEqual({ budget: { costPerDayUsd: 1 } });
    });
  });
}

