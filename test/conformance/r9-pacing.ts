/**
 * R9 per inbox: its own gap, its person's quiet hours (across midnight, on
 * both DST days) and daily limit, the same on every store. Each hold also
 * moves the inbox's next send in the store's index, so a dispatcher does
 * not come back for it before it may go.
 */
import { describe, expect, it } from 'vitest';
import type { HeldMessage, Inbox, InboxSettings, OutboxMessage, Store } from '../../src/index.js';
import { useStore, type StoreTarget, type Fixture } from './harness.js';
import { lease } from './helpers.js';

const HOUR = 3_600_000;
const at = (iso: string): number => Date.parse(iso);

async function queue(inbox: Inbox, ...messages: OutboxMessage[]): Promise<void> {
  const gen = await lease(inbox, 'W');
  expect(await inbox.finish('W', gen, [], { messages })).toBe(true);
  await inbox.release('W', gen);
}

/** Dispatches once; the bodies of each batch sent. */
async function dispatch(inbox: Inbox): Promise<string[][]> {
  const batches: HeldMessage[][] = [];
  await inbox.dispatch((_body, messages) => void batches.push(messages));
  return batches.map((batch) => batch.map((m) => m.body));
}

async function listed(store: Store): Promise<string[]> {
  return store.dispatchableInboxes();
}

export function r9Pacing(target: StoreTarget): void {
  describe(`R9 per inbox: gap, quiet hours, daily limit (${target.name})`, () => {
    const open = useStore(target);

    /** A store paced at one send an hour, with `alice`'s settings, the clock at `start`. */
    async function paced(settings: InboxSettings, start: string): Promise<Fixture & { inbox: Inbox }> {
      const fixture = await open({ outboxGapMs: HOUR });
      fixture.clock.set(at(start));
      const inbox = fixture.store.inbox('alice');
      await inbox.updateSettings(settings);
      return { ...fixture, inbox };
    }

    it("outbox.gapMs overrides the store's gap for that inbox only", async () => {
      const { store, inbox } = await paced({ outbox: { gapMs: 0 } }, '2026-01-15T10:00:00Z');
      const bob = store.inbox('bob');
      for (const box of [inbox, bob]) await queue(box, 'one');
      expect([await dispatch(inbox), await dispatch(bob)]).toEqual([[['one']], [['one']]]);
      for (const box of [inbox, bob]) await queue(box, 'two');
      expect([await dispatch(inbox), await dispatch(bob)]).toEqual([[['two']], []]);
      expect(await listed(store)).toEqual([]); // bob's next paced send is an hour away
    });

    describe('quiet hours 22:00 to 07:00 Europe/Berlin, across midnight', () => {
      const QUIET = { outbox: { gapMs: 0, quietHours: { from: '22:00', to: '07:00', timeZone: 'Europe/Berlin' } } };

      it('a winter night: held from 22:00 to 07:00 local, urgent alone meanwhile, then the held ones together', async () => {
        const { store, clock, inbox } = await paced(QUIET, '2026-01-15T20:59:59.999Z'); // 21:59:59.999 in Berlin (UTC+1)
        await queue(inbox, 'evening');
        expect(await dispatch(inbox)).toEqual([['evening']]);
        clock.set(at('2026-01-15T21:00:00.000Z')); // 22:00
        await queue(inbox, 'night 1');
        expect(await dispatch(inbox)).toEqual([]);
        expect(await listed(store)).toEqual([]);
        clock.set(at('2026-01-15T22:00:00Z'));
        await queue(inbox, { body: 'now', urgent: true }, 'night 2');
        expect(await dispatch(inbox)).toEqual([['now']]); // alone: the held ones keep waiting
        clock.set(at('2026-01-16T05:59:59.999Z')); // 06:59:59.999
        expect(await listed(store)).toEqual([]);
        expect(await dispatch(inbox)).toEqual([]);
        clock.set(at('2026-01-16T06:00:00.000Z')); // 07:00
        expect(await listed(store)).toEqual(['alice']);
        expect(await dispatch(inbox)).toEqual([['night 1', 'night 2']]);
      });

      it('the spring DST night (2026-03-29, 02:00 becomes 03:00): 07:00 is 05:00Z, not 06:00Z', async () => {
        const { clock, inbox } = await paced(QUIET, '2026-03-28T21:00:00Z'); // 22:00 CET
        await queue(inbox, 'held');
        expect(await dispatch(inbox)).toEqual([]);
        clock.set(at('2026-03-29T04:59:59.999Z')); // 06:59:59.999 CEST
        expect(await dispatch(inbox)).toEqual([]);
        clock.set(at('2026-03-29T05:00:00.000Z')); // 07:00 CEST
        expect(await dispatch(inbox)).toEqual([['held']]);
      });

      it('the autumn DST night (2026-10-25, 03:00 becomes 02:00): 07:00 is 06:00Z', async () => {
        const { clock, inbox } = await paced(QUIET, '2026-10-24T20:00:00Z'); // 22:00 CEST
        await queue(inbox, 'held');
        expect(await dispatch(inbox)).toEqual([]);
        clock.set(at('2026-10-25T05:59:59.999Z')); // 06:59:59.999 CET
        expect(await dispatch(inbox)).toEqual([]);
        clock.set(at('2026-10-25T06:00:00.000Z')); // 07:00 CET
        expect(await dispatch(inbox)).toEqual([['held']]);
      });
    });

    it('quiet hours that end at a time the spring night skips (02:30) end the gap later, at 03:30 CEST', async () => {
      const { clock, inbox } = await paced({ outbox: { gapMs: 0, quietHours: { from: '01:00', to: '02:30', timeZone: 'Europe/Berlin' } } }, '2026-03-29T00:00:00Z');
      await queue(inbox, 'held');
      expect(await dispatch(inbox)).toEqual([]);
      clock.set(at('2026-03-29T01:29:59.999Z'));
      expect(await dispatch(inbox)).toEqual([]);
      clock.set(at('2026-03-29T01:30:00.000Z')); // 03:30 CEST
      expect(await dispatch(inbox)).toEqual([['held']]);
    });

    it('quiet hours that end at a time the autumn night repeats (02:30) end at its first, and do not start again in the repeated hour', async () => {
      const { clock, inbox } = await paced({ outbox: { gapMs: 0, quietHours: { from: '22:00', to: '02:30', timeZone: 'Europe/Berlin' } } }, '2026-10-24T20:00:00Z');
      await queue(inbox, 'held');
      clock.set(at('2026-10-25T00:29:59.999Z')); // 02:29:59.999 CEST
      expect(await dispatch(inbox)).toEqual([]);
      clock.set(at('2026-10-25T00:30:00.000Z')); // the first 02:30
      expect(await dispatch(inbox)).toEqual([['held']]);
      clock.set(at('2026-10-25T01:15:00.000Z')); // 02:15 CET, the hour again
      await queue(inbox, 'after');
      expect(await dispatch(inbox)).toEqual([['after']]);
    });

    it('removing quiet hours lets what they held go at once', async () => {
      const { store, inbox } = await paced({ outbox: { gapMs: 0, quietHours: { from: '22:00', to: '07:00', timeZone: 'UTC' } } }, '2026-01-15T23:00:00Z');
      await queue(inbox, 'held');
      expect(await dispatch(inbox)).toEqual([]);
      expect(await listed(store)).toEqual([]);
      await inbox.updateSettings({ outbox: { quietHours: null } });
      expect(await listed(store)).toEqual(['alice']);
      expect(await dispatch(inbox)).toEqual([['held']]);
    });

    it('dailyLimit counts non-urgent sends per UTC day: urgent ones go and do not count; it resets at midnight, not a ms before', async () => {
      const { store, clock, inbox } = await paced({ outbox: { gapMs: 0, dailyLimit: 2 } }, '2026-01-15T10:00:00Z');
      await queue(inbox, 'a');
      expect(await dispatch(inbox)).toEqual([['a']]);
      await queue(inbox, 'b');
      expect(await dispatch(inbox)).toEqual([['b']]);
      await queue(inbox, 'c');
      expect(await dispatch(inbox)).toEqual([]);
      await queue(inbox, { body: 'urgent', urgent: true });
      expect(await dispatch(inbox)).toEqual([['urgent']]);
      expect(await listed(store)).toEqual([]);
      clock.set(at('2026-01-15T23:59:59.999Z'));
      expect(await dispatch(inbox)).toEqual([]);
      clock.set(at('2026-01-16T00:00:00.000Z'));
      expect(await listed(store)).toEqual(['alice']);
      expect(await dispatch(inbox)).toEqual([['c']]);
    });

    it("dailyLimit's day is the quiet hours' time zone: it resets at local midnight", async () => {
      const ny = { outbox: { gapMs: 0, dailyLimit: 1, quietHours: { from: '12:00', to: '13:00', timeZone: 'America/New_York' } } };
      const { clock, inbox } = await paced(ny, '2026-01-15T15:00:00Z'); // 10:00 in New York (UTC-5)
      await queue(inbox, 'first');
      expect(await dispatch(inbox)).toEqual([['first']]);
      await queue(inbox, 'second');
      clock.set(at('2026-01-16T04:59:59.999Z')); // 23:59:59.999 local: still the 15th there
      expect(await dispatch(inbox)).toEqual([]);
      clock.set(at('2026-01-16T05:00:00.000Z')); // local midnight
      expect(await dispatch(inbox)).toEqual([['second']]);
    });

    it("dailyLimit without quiet hours counts the inbox's timeZone days", async () => {
      const { clock, inbox } = await paced({ timeZone: 'America/New_York', outbox: { gapMs: 0, dailyLimit: 1 } }, '2026-01-15T15:00:00Z');
      await queue(inbox, 'first');
      expect(await dispatch(inbox)).toEqual([['first']]);
      await queue(inbox, 'second');
      clock.set(at('2026-01-16T04:59:59.999Z')); // 23:59:59.999 in New York: still the 15th there
      expect(await dispatch(inbox)).toEqual([]);
      clock.set(at('2026-01-16T05:00:00.000Z'));
      expect(await dispatch(inbox)).toEqual([['second']]);
    });

    it("quiet hours with no time zone of their own keep the inbox's timeZone; their own wins", async () => {
      const { clock, inbox } = await paced({ timeZone: 'Europe/Berlin', outbox: { gapMs: 0, quietHours: { from: '22:00', to: '07:00' } } }, '2026-01-15T21:30:00Z');
      await queue(inbox, 'night'); // 22:30 in Berlin, 21:30 UTC: quiet only in Berlin
      expect(await dispatch(inbox)).toEqual([]);
      clock.set(at('2026-01-16T06:00:00Z')); // 07:00 in Berlin
      expect(await dispatch(inbox)).toEqual([['night']]);
      await inbox.updateSettings({ outbox: { quietHours: { timeZone: 'UTC' } } });
      clock.set(at('2026-01-16T21:30:00Z')); // 22:30 in Berlin, 21:30 UTC: not quiet in UTC
      await queue(inbox, 'evening');
      expect(await dispatch(inbox)).toEqual([['evening']]);
    });

    it('a send that fails gives its count back: the daily limit is not used up by nothing sent', async () => {
      const { inbox } = await paced({ outbox: { gapMs: 0, dailyLimit: 1 } }, '2026-01-15T10:00:00Z');
      await queue(inbox, 'once');
      await expect(inbox.dispatch(() => Promise.reject(new Error('channel down')))).rejects.toThrow('channel down');
      expect(await dispatch(inbox)).toEqual([['once']]);
    });
  });
}
