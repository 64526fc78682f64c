import { describe, expect, it } from 'vitest';
import type { EventRow, FakeClock, Inbox } from '../../src/index.js';
import { BOUNDS } from '../../src/index.js';
import { T0, useStore, type StoreTarget } from './harness.js';
import { expectVigilError } from './helpers.js';

interface Fired {
  sourceId: string;
  scheduledFor: number;
  lateBy: number;
  skipped: number;
}

/** The timer events in the inbox, oldest first. */
async function fired(inbox: Inbox): Promise<Fired[]> {
  const rows = await inbox.events({ limit: 10_000 });
  return rows
    .filter((row: EventRow) => row.source === 'timer')
    .map((row) => {
      const { scheduledFor, lateBy, skipped } = row.payload as Fired;
      return { sourceId: row.sourceId, scheduledFor, lateBy, skipped };
    });
}

/** `2025-03-30 09:00` in `tz`. */
function localTime(ms: number, tz: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** Runs the scheduler every `stepMs` from `from` to `to` inclusive, as a polling worker would. */
async function walk(inbox: Inbox, clock: FakeClock, from: number, to: number, stepMs: number): Promise<void> {
  for (let t = from; t <= to; t += stepMs) {
    clock.set(t);
    await inbox.runScheduler();
  }
}

const HALF_HOUR = 30 * 60_000;

export function r7Timers(target: StoreTarget): void {
  describe(`R7 timers (${target.name})`, () => {
    const open = useStore(target);

    describe('one-off', () => {
      it('fires once at due (not 1 ms before) under key timer/<id>@<due>, payload with scheduledFor, lateBy, skipped', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'remind', due: T0 + 1_000, payload: { text: 'call back' } });
        clock.set(T0 + 999);
        expect(await inbox.runScheduler()).toBe(0);
        expect(await inbox.events()).toEqual([]);
        clock.set(T0 + 1_000);
        expect(await inbox.runScheduler()).toBe(1);
        const event = await inbox.getEvent('timer', `remind@${T0 + 1_000}`);
        expect(event).toMatchObject({
          status: 'pending',
          attempts: 0,
          payload: { text: 'call back', scheduledFor: T0 + 1_000, lateBy: 0, skipped: 0 },
        });
        // A second pass at the same instant finds nothing due.
        expect(await inbox.runScheduler()).toBe(0);
        clock.advance(1_000_000);
        expect(await inbox.runScheduler()).toBe(0);
        expect(await inbox.events()).toHaveLength(1);
      });

      it('fires late with lateBy = now - due, and is then done', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 't', due: T0 + 1_000 });
        clock.set(T0 + 1_500);
        await inbox.runScheduler();
        expect(await fired(inbox)).toEqual([{ sourceId: `t@${T0 + 1_000}`, scheduledFor: T0 + 1_000, lateBy: 500, skipped: 0 }]);
        expect(await inbox.timers()).toEqual([
          {
            id: 't',
            due: T0 + 1_000,
            every: null,
            cron: null,
            tz: null,
            missed: 'coalesce',
            done: true,
            payload: {},
            key: null,
            lastSkipped: 0,
          },
        ]);
        expect((await inbox.stats()).timers).toBe(0);
      });

      it('a due in the past fires at the next pass', async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 't', due: T0 - 5_000 });
        expect(await inbox.runScheduler()).toBe(1);
        expect(await fired(inbox)).toMatchObject([{ scheduledFor: T0 - 5_000, lateBy: 5_000 }]);
      });

      it('a fixed key replaces timer/<id>@<due>', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'follow-up', due: T0 + 10, key: { source: 'reminder', sourceId: 'order-7' } });
        expect((await inbox.timers())[0]!.key).toEqual({ source: 'reminder', sourceId: 'order-7' });
        clock.set(T0 + 10);
        await inbox.runScheduler();
        expect(await inbox.getEvent('reminder', 'order-7')).toMatchObject({ payload: { scheduledFor: T0 + 10, lateBy: 0, skipped: 0 } });
        expect(await fired(inbox)).toEqual([]);
      });

      it('a fixed key that already exists is a duplicate: the first event stands', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.ingest({ source: 'reminder', sourceId: 'order-7', payload: { by: 'webhook' } });
        await inbox.addTimer({ id: 'follow-up', due: T0 + 10, key: { source: 'reminder', sourceId: 'order-7' } });
        clock.set(T0 + 10);
        expect(await inbox.runScheduler()).toBe(1);
        expect(await inbox.events()).toMatchObject([{ source: 'reminder', sourceId: 'order-7', payload: { by: 'webhook' } }]);
        expect((await inbox.timers())[0]!.done).toBe(true);
      });
    });

    describe('interval', () => {
      it('fires at due, due + every, ... and advances each time', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'tick', due: T0 + 1_000, every: 1_000 });
        for (const t of [T0 + 1_000, T0 + 1_999, T0 + 2_000, T0 + 3_000]) {
          clock.set(t);
          await inbox.runScheduler();
        }
        expect((await fired(inbox)).map((f) => f.scheduledFor)).toEqual([T0 + 1_000, T0 + 2_000, T0 + 3_000]);
        expect(await inbox.timers()).toMatchObject([{ id: 'tick', due: T0 + 4_000, every: 1_000, done: false, lastSkipped: 0 }]);
        expect((await inbox.stats()).timers).toBe(1);
      });

      it('missed: coalesce (default) makes one event for the latest missed occurrence, counting the skipped', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'digest', due: T0 + 1_000, every: 1_000, payload: { kind: 'digest' } });
        clock.set(T0 + 5_500); // occurrences at 1000..5000 were missed: five of them
        expect(await inbox.runScheduler()).toBe(1);
        expect(await fired(inbox)).toEqual([{ sourceId: `digest@${T0 + 5_000}`, scheduledFor: T0 + 5_000, lateBy: 500, skipped: 4 }]);
        expect((await inbox.getEvent('timer', `digest@${T0 + 5_000}`))!.payload).toMatchObject({ kind: 'digest' });
        expect(await inbox.timers()).toMatchObject([{ due: T0 + 6_000, lastSkipped: 4 }]);
        expect(await inbox.runScheduler()).toBe(0);
      });

      it('coalesce exactly at an occurrence: scheduledFor = now, lateBy 0', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'd', due: T0 + 1_000, every: 1_000 });
        clock.set(T0 + 3_000);
        await inbox.runScheduler();
        expect(await fired(inbox)).toMatchObject([{ scheduledFor: T0 + 3_000, lateBy: 0, skipped: 2 }]);
        expect((await inbox.timers())[0]!.due).toBe(T0 + 4_000);
      });

      it("missed: 'each' makes one event per missed occurrence, each under its own key", async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'bill', due: T0 + 1_000, every: 1_000, missed: 'each' });
        clock.set(T0 + 3_500);
        expect(await inbox.runScheduler()).toBe(1);
        expect(await fired(inbox)).toEqual([
          { sourceId: `bill@${T0 + 1_000}`, scheduledFor: T0 + 1_000, lateBy: 2_500, skipped: 0 },
          { sourceId: `bill@${T0 + 2_000}`, scheduledFor: T0 + 2_000, lateBy: 1_500, skipped: 0 },
          { sourceId: `bill@${T0 + 3_000}`, scheduledFor: T0 + 3_000, lateBy: 500, skipped: 0 },
        ]);
        expect(await inbox.timers()).toMatchObject([{ due: T0 + 4_000, missed: 'each', lastSkipped: 0 }]);
      });

      it("missed: 'each' fires at most 1000 occurrences per pass; the rest come next pass", async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'm', due: T0, every: 1, missed: 'each' });
        clock.set(T0 + 1_499); // 1500 occurrences due: T0 .. T0 + 1499
        expect(await inbox.runScheduler()).toBe(1);
        let events = await fired(inbox);
        expect(events).toHaveLength(1_000);
        expect(events[999]!.scheduledFor).toBe(T0 + 999);
        expect((await inbox.timers())[0]!.due).toBe(T0 + 1_000);
        expect(await inbox.runScheduler()).toBe(1);
        events = await fired(inbox);
        expect(events).toHaveLength(1_500);
        expect(new Set(events.map((e) => e.sourceId)).size).toBe(1_500);
        expect(events.map((e) => e.scheduledFor)).toEqual(Array.from({ length: 1_500 }, (_, i) => T0 + i));
        expect((await inbox.timers())[0]!.due).toBe(T0 + 1_500);
        expect(await inbox.runScheduler()).toBe(0);
      });

      it('exactly 1000 missed occurrences fire in one pass', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'm', due: T0, every: 10, missed: 'each' });
        clock.set(T0 + 9_990);
        await inbox.runScheduler();
        expect(await fired(inbox)).toHaveLength(1_000);
        expect(await inbox.runScheduler()).toBe(0);
      });
    });

    describe('upsert, replay, remove', () => {
      it('addTimer upserts by id: a new spec replaces the old one and a done timer is live again', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 't', due: T0 + 10, every: 5, payload: { v: 1 } });
        clock.set(T0 + 30);
        await inbox.runScheduler();
        expect((await inbox.timers())[0]!.lastSkipped).toBe(4);
        await inbox.addTimer({ id: 't', due: T0 + 100, payload: { v: 2 } });
        expect(await inbox.timers()).toEqual([
          { id: 't', due: T0 + 100, every: null, cron: null, tz: null, missed: 'coalesce', done: false, payload: { v: 2 }, key: null, lastSkipped: null },
        ]);
        clock.set(T0 + 100);
        await inbox.runScheduler();
        expect((await inbox.timers())[0]!.done).toBe(true);
        await inbox.addTimer({ id: 't', due: T0 + 200 });
        expect(await inbox.timers()).toMatchObject([{ done: false, due: T0 + 200, payload: {} }]);
        expect((await inbox.stats()).timers).toBe(1);
      });

      it('a replay of the same occurrence is a duplicate: re-adding a fired one-off stores no second event', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 't', due: T0 + 10, payload: { v: 1 } });
        clock.set(T0 + 10);
        await inbox.runScheduler();
        await inbox.addTimer({ id: 't', due: T0 + 10, payload: { v: 2 } });
        clock.set(T0 + 20);
        expect(await inbox.runScheduler()).toBe(1);
        const events = await inbox.events();
        expect(events).toHaveLength(1);
        expect(events[0]!.payload).toMatchObject({ v: 1, lateBy: 0 });
      });

      it('an interval timer re-added with its old first due replays no occurrence already stored', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const spec = { id: 'i', due: T0 + 100, every: 100, missed: 'each' as const };
        await inbox.addTimer(spec);
        clock.set(T0 + 300);
        await inbox.runScheduler();
        await inbox.addTimer(spec);
        clock.set(T0 + 400);
        await inbox.runScheduler();
        expect((await fired(inbox)).map((f) => f.scheduledFor)).toEqual([T0 + 100, T0 + 200, T0 + 300, T0 + 400]);
      });

      it('removeTimer deletes it (true), a second time is false, and it never fires', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        expect(await inbox.removeTimer('t')).toBe(false);
        await inbox.addTimer({ id: 't', due: T0 + 10 });
        await inbox.addTimer({ id: 'u', due: T0 + 10 });
        expect(await inbox.removeTimer('t')).toBe(true);
        expect(await inbox.removeTimer('t')).toBe(false);
        clock.set(T0 + 10);
        expect(await inbox.runScheduler()).toBe(1);
        expect((await inbox.timers()).map((t) => t.id)).toEqual(['u']);
        expect((await fired(inbox)).map((f) => f.sourceId)).toEqual([`u@${T0 + 10}`]);
      });

      it('timers() is sorted by id and includes done one-offs', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        expect(await inbox.timers()).toEqual([]);
        await inbox.addTimer({ id: 'c', due: T0 + 10 });
        await inbox.addTimer({ id: 'a', due: T0 + 5, every: 60_000 });
        await inbox.addTimer({ id: 'b', cron: '0 * * * *' });
        clock.set(T0 + 10);
        await inbox.runScheduler();
        const timers = await inbox.timers();
        expect(timers.map((t) => [t.id, t.done])).toEqual([
          ['a', false],
          ['b', false],
          ['c', true],
        ]);
        expect((await inbox.stats()).timers).toBe(2);
      });

      it('a scheduler pass never starts a run: no lease is taken, events wait pending', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 't', due: T0 });
        clock.advance(1);
        await inbox.runScheduler();
        const stats = await inbox.stats();
        expect(stats.lease).toBeNull();
        expect(stats.events).toEqual({ pending: 1, running: 0, done: 0, dead: 0 });
      });

      it('runScheduler on an inbox that was never written is 0', async () => {
        const { store } = await open();
        expect(await store.inbox('ghost').runScheduler()).toBe(0);
        expect(await store.inbox('ghost').timers()).toEqual([]);
      });

      it('a timer id of 200 characters works and its event key fits 256; 201 is invalid_timer', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const id = 't'.repeat(200);
        const due = -BOUNDS.maxTimeMs; // the longest scheduledFor there is (times are bounded to ±year 9999)
        await inbox.addTimer({ id, due });
        clock.set(due);
        await inbox.runScheduler();
        const [event] = await inbox.events();
        expect(event!.sourceId).toBe(`${id}@-253402300799999`);
        expect(event!.sourceId.length).toBeLessThanOrEqual(256);
        await expectVigilError(inbox.addTimer({ id: 't'.repeat(201), due: T0 }), 'invalid_timer');
        await expectVigilError(inbox.removeTimer('t'.repeat(201)), 'invalid_timer');
        expect((await inbox.timers()).map((t) => t.id)).toEqual([id]);
      });
    });

    describe('cron', () => {
      it('the first due is the next match strictly after now', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.UTC(2025, 0, 6, 10, 0, 0); // a match of */5 itself
        clock.set(start);
        await inbox.addTimer({ id: 'five', cron: '*/5 * * * *' });
        expect(await inbox.timers()).toMatchObject([{ id: 'five', cron: '*/5 * * * *', tz: null, every: null, due: start + 5 * 60_000 }]);
        clock.set(start + 1);
        await inbox.addTimer({ id: 'five', cron: '*/5 * * * *' });
        expect((await inbox.timers())[0]!.due).toBe(start + 5 * 60_000);
      });

      it('a given due is used as the first occurrence', async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 'c', cron: '0 * * * *', due: T0 + 1 });
        expect((await inbox.timers())[0]!.due).toBe(T0 + 1);
        expect(await inbox.runScheduler()).toBe(0);
      });

      it('fires at each match and advances to the next', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.UTC(2025, 0, 6, 10, 0, 0);
        clock.set(start);
        await inbox.addTimer({ id: 'h', cron: '0 * * * *', payload: { what: 'hourly' } });
        await walk(inbox, clock, start, start + 3 * 3_600_000, 15 * 60_000);
        expect(await fired(inbox)).toEqual([1, 2, 3].map((h) => ({
          sourceId: `h@${start + h * 3_600_000}`,
          scheduledFor: start + h * 3_600_000,
          lateBy: 0,
          skipped: 0,
        })));
        expect((await inbox.timers())[0]!.due).toBe(start + 4 * 3_600_000);
      });

      it('coalesces missed matches into one event for the latest', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.UTC(2025, 0, 6, 10, 0, 0);
        clock.set(start);
        await inbox.addTimer({ id: 'h', cron: '0 * * * *' });
        clock.set(start + 3.5 * 3_600_000); // 11:00, 12:00, 13:00 missed
        expect(await inbox.runScheduler()).toBe(1);
        expect(await fired(inbox)).toEqual([
          { sourceId: `h@${start + 3 * 3_600_000}`, scheduledFor: start + 3 * 3_600_000, lateBy: 1_800_000, skipped: 2 },
        ]);
        expect((await inbox.timers())[0]).toMatchObject({ due: start + 4 * 3_600_000, lastSkipped: 2 });
      });

      it('after an outage longer than the skip count covers, one event for the latest match, and the next pass finds nothing', async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.UTC(2025, 0, 6, 0, 0, 0);
        clock.set(start);
        await inbox.addTimer({ id: 's', cron: '* * * * * *' }); // every second
        const now = start + 200_000 * 1_000 + 400; // 200,000 matches missed
        clock.set(now);
        expect(await inbox.runScheduler()).toBe(1);
        const events = await fired(inbox);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ scheduledFor: now - 400, lateBy: 400 });
        expect(events[0]!.skipped).toBe(1_000); // counted up to the cap (MAX_CRON_COUNT), like 'each' fires up to it
        expect((await inbox.timers())[0]!.due).toBe(now - 400 + 1_000);
        expect(await inbox.runScheduler()).toBe(0);
        expect(await fired(inbox)).toHaveLength(1);
      });

      it("missed: 'each' makes one event per missed match", async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.UTC(2025, 0, 6, 10, 0, 0);
        clock.set(start);
        await inbox.addTimer({ id: 'h', cron: '0 * * * *', missed: 'each' });
        clock.set(start + 3.5 * 3_600_000);
        await inbox.runScheduler();
        expect((await fired(inbox)).map((f) => [f.scheduledFor - start, f.skipped])).toEqual([
          [3_600_000, 0],
          [7_200_000, 0],
          [10_800_000, 0],
        ]);
      });

      it("missed: 'each' on a cron timer is capped at 1000 per pass too", async () => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.UTC(2025, 0, 6, 0, 0, 0);
        clock.set(start);
        await inbox.addTimer({ id: 'm', cron: '* * * * *', missed: 'each' });
        clock.set(start + 1_200 * 60_000); // 1200 minutes
        await inbox.runScheduler();
        expect(await fired(inbox)).toHaveLength(1_000);
        expect((await inbox.timers())[0]!.due).toBe(start + 1_001 * 60_000);
        await inbox.runScheduler();
        expect(await fired(inbox)).toHaveLength(1_200);
        expect(await inbox.runScheduler()).toBe(0);
      });

      // A daily 09:00 timer stays at 09:00 local across both DST changes.
      it.each([
        ['Europe/Berlin', 'spring forward', '2025-03-28T12:00:00Z', ['2025-03-29 09:00', '2025-03-30 09:00', '2025-03-31 09:00']],
        ['Europe/Berlin', 'fall back', '2025-10-24T12:00:00Z', ['2025-10-25 09:00', '2025-10-26 09:00', '2025-10-27 09:00']],
        ['America/New_York', 'spring forward', '2025-03-07T16:00:00Z', ['2025-03-08 09:00', '2025-03-09 09:00', '2025-03-10 09:00']],
        ['America/New_York', 'fall back', '2025-10-31T16:00:00Z', ['2025-11-01 09:00', '2025-11-02 09:00', '2025-11-03 09:00']],
      ])("'0 9 * * *' in %s across %s fires at 09:00 local every day", async (tz, change, from, expected) => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.parse(from);
        clock.set(start);
        await inbox.addTimer({ id: 'morning', cron: '0 9 * * *', tz });
        expect(await inbox.timers()).toMatchObject([{ tz, cron: '0 9 * * *' }]);
        await walk(inbox, clock, start, start + 3 * 86_400_000 - 1, HALF_HOUR);
        const events = await fired(inbox);
        expect(events.map((e) => localTime(e.scheduledFor, tz))).toEqual(expected);
        expect(events.every((e) => e.lateBy === 0 && e.skipped === 0)).toBe(true);
        // The UTC instants differ by 23 or 25 hours across the change: the offset really moved.
        const gaps = events.slice(1).map((e, i) => (e.scheduledFor - events[i]!.scheduledFor) / 3_600_000);
        expect(gaps).toContain(change === 'spring forward' ? 23 : 25);
      });

      // 02:30 does not exist on a spring-forward day: croner moves it to 03:30 local, once.
      it.each([
        ['Europe/Berlin', '30 2 * * *', '2025-03-28T12:00:00Z', ['2025-03-29 02:30', '2025-03-30 03:30', '2025-03-31 02:30']],
        ['America/New_York', '30 2 * * *', '2025-03-07T16:00:00Z', ['2025-03-08 02:30', '2025-03-09 03:30', '2025-03-10 02:30']],
      ])('%s %s in the spring gap fires exactly once that day, at 03:30 local', async (tz, cron, from, expected) => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.parse(from);
        clock.set(start);
        await inbox.addTimer({ id: 'night', cron, tz });
        await walk(inbox, clock, start, start + 3 * 86_400_000 - 1, HALF_HOUR);
        const events = await fired(inbox);
        expect(events.map((e) => localTime(e.scheduledFor, tz))).toEqual(expected);
        expect(events.every((e) => e.lateBy === 0)).toBe(true);
      });

      // A time that happens twice on a fall-back day fires once.
      it.each([
        ['Europe/Berlin', '30 2 * * *', '2025-10-24T12:00:00Z', ['2025-10-25 02:30', '2025-10-26 02:30', '2025-10-27 02:30']],
        ['America/New_York', '30 1 * * *', '2025-10-31T16:00:00Z', ['2025-11-01 01:30', '2025-11-02 01:30', '2025-11-03 01:30']],
      ])('%s %s in the repeated fall-back hour fires exactly once that day', async (tz, cron, from, expected) => {
        const { store, clock } = await open();
        const inbox = store.inbox('alice');
        const start = Date.parse(from);
        clock.set(start);
        await inbox.addTimer({ id: 'night', cron, tz });
        await walk(inbox, clock, start, start + 3 * 86_400_000 - 1, HALF_HOUR);
        expect((await fired(inbox)).map((e) => localTime(e.scheduledFor, tz))).toEqual(expected);
      });

      it('a cron pattern with no match after now is invalid_timer and stores nothing, not even an empty inbox', async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        const error = await expectVigilError(inbox.addTimer({ id: 'never', cron: '0 0 30 2 *' }), 'invalid_timer');
        expect(error.message).toBe('timer "never": cron pattern never matches after now');
        expect(await inbox.timers()).toEqual([]);
        expect(await store.inboxes()).toEqual([]);
      });

      it("\"after now\" is the store's clock: a pattern whose only match lies between it and the wall clock is accepted", async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        // New Year 2000 (a seven-field pattern: seconds first, the year last): after T0 (January 1970), before today.
        await inbox.addTimer({ id: 'y2k', cron: '0 0 0 1 1 * 2000', tz: 'UTC' });
        expect((await inbox.timers()).map((t) => [t.id, t.due])).toEqual([['y2k', Date.UTC(2000, 0, 1)]]);
      });
    });

    describe('bad input', () => {
      it.each([
        ['due 1.5', { id: 't', due: 1.5 }],
        ['due as a string', { id: 't', due: '1000' }],
        ['due NaN', { id: 't', due: Number.NaN }],
        ['no due on a one-off', { id: 't' }],
        ['no due on an interval', { id: 't', every: 1_000 }],
        ['every 0', { id: 't', due: T0, every: 0 }],
        ['every -1', { id: 't', due: T0, every: -1 }],
        ['every 1.5', { id: 't', due: T0, every: 1.5 }],
        ['every and cron together', { id: 't', due: T0, every: 1_000, cron: '* * * * *' }],
        ['a malformed cron', { id: 't', cron: 'every day at nine' }],
        ['a cron minute of 61', { id: 't', cron: '61 * * * *' }],
        ['an empty cron', { id: 't', cron: '' }],
        ['an unknown time zone', { id: 't', cron: '0 9 * * *', tz: 'Mars/Olympus_Mons' }],
        ['a non-string time zone', { id: 't', cron: '0 9 * * *', tz: 1 }],
        ['a tz without cron', { id: 't', due: T0, tz: 'Europe/Berlin' }],
        ['a fixed key on an interval timer', { id: 't', due: T0, every: 1_000, key: { source: 's', sourceId: 'x' } }],
        ['a fixed key on a cron timer', { id: 't', cron: '0 9 * * *', key: { source: 's', sourceId: 'x' } }],
        ['a key with an empty sourceId', { id: 't', due: T0, key: { source: 's', sourceId: '' } }],
        ['a key that is not an object', { id: 't', due: T0, key: 'x' }],
        ['an unknown missed policy', { id: 't', due: T0, every: 10, missed: 'sometimes' }],
        ['an array payload', { id: 't', due: T0, payload: [1] }],
        ['a payload with a function', { id: 't', due: T0, payload: { f: () => 1 } }],
        ['an empty id', { id: '', due: T0 }],
        ['a non-string id', { id: 7, due: T0 }],
        ['not an object', 'tomorrow'],
      ])('addTimer with %s is invalid_timer and stores nothing', async (_what, spec) => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await expectVigilError(inbox.addTimer(spec as never), 'invalid_timer');
        expect(await inbox.timers()).toEqual([]);
        expect(await store.inboxes()).toEqual([]);
      });

      it('a payload over maxPayloadBytes is invalid_timer', async () => {
        const { store } = await open({ maxPayloadBytes: 16 });
        const inbox = store.inbox('alice');
        await expectVigilError(inbox.addTimer({ id: 't', due: T0, payload: { text: 'x'.repeat(20) } }), 'invalid_timer');
        expect(await inbox.timers()).toEqual([]);
      });

      it('a rejected upsert leaves the existing timer as it was', async () => {
        const { store } = await open();
        const inbox = store.inbox('alice');
        await inbox.addTimer({ id: 't', due: T0 + 10, every: 10 });
        const before = await inbox.timers();
        await expectVigilError(inbox.addTimer({ id: 't', due: T0 + 10, every: 0 }), 'invalid_timer');
        await expectVigilError(inbox.addTimer({ id: 't', cron: '0 0 30 2 *' }), 'invalid_timer');
        expect(await inbox.timers()).toEqual(before);
      });
    });
  });
}
