/**
 * Fuzz: timer specs (R7) from mixes of valid and invalid ids, due times,
 * intervals, cron patterns, time zones, missed policies, payloads and keys.
 * addTimer either succeeds (and timers() lists it, on both handles) or is a
 * VigilError invalid_timer/invalid_argument that changes nothing; the
 * scheduler never throws afterwards, however far the clock moves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TimerSpec } from '../../src/index.js';
import { expectVigilCode, hostileValue, KEYS_WITH_LONE_SURROGATES, nastyString, nextInboxId, outcomeOf, T0, useFuzzStore } from './fuzz-kit.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 3 });
const weird = fc.constantFrom<unknown>(null, NaN, Infinity, -Infinity, -0, '1000', true, [], {}, 1n);

const idArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('t1', 't2', 'digest') },
  { weight: 3, arbitrary: nastyString({ loneSurrogates: KEYS_WITH_LONE_SURROGATES }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);
const dueArb = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: T0 - DAY, max: T0 + 30 * DAY }) },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -1, 2 ** 53, 2 ** 53 - 1, -(2 ** 53), 8.64e15, T0 + 0.5) },
  { weight: 1, arbitrary: weird },
);
const everyArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(1, 1000, 60_000, HOUR, DAY, 7 * DAY) },
  { weight: 2, arbitrary: fc.integer({ min: -10, max: 10 * DAY }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -1, 0.5, 1.5, 2 ** 53, 2 ** 53 - 1, 1e300) },
  { weight: 1, arbitrary: weird },
);
/**
 * Patterns matching at most daily when a tz can join them: a cron with a
 * time zone that fell far behind makes one scheduler pass count up to
 * 100,000 matches at ~0.4 ms each (see found-bugs.test.ts), which would
 * spend the whole time budget here. Finer patterns run without a tz below.
 */
const COARSE_CRONS = ['0 9 * * 1-5', '0 0 1 * *', '30 2 * * *', '0 0 29 2 *', '0 0 31 2 *', '0 0 12 * * MON', '0 3 * * 0#2', '59 23 L * *', '@daily'];
const FINE_CRONS = ['* * * * *', '*/5 * * * *', '@hourly', '*/10 * * * * *'];
const cronArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...COARSE_CRONS) },
  { weight: 2, arbitrary: fc.constantFrom('', '   ', '* * *', '61 * * * *', '* * * * * * * *', 'every day', '*/0 * * * *', '1-0 * * * *', '? ? ? ? ?', '0 0 30 2 * 2099') },
  { weight: 2, arbitrary: nastyString() },
  { weight: 1, arbitrary: weird },
);
const tzArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Kiritimati', 'Etc/GMT+12') },
  { weight: 2, arbitrary: fc.constantFrom('Mars/Olympus', 'europe/berlin', '', 'GMT+25', '+01:00', 'Europe/../etc/passwd', 'Local') },
  { weight: 1, arbitrary: nastyString() },
  { weight: 1, arbitrary: weird },
);
const missedArb = fc.oneof(fc.constantFrom<unknown>('coalesce', 'each'), fc.constantFrom<unknown>('all', 'EACH', '', 1, null));
const keyArb = fc.oneof(
  { weight: 3, arbitrary: fc.record({ source: fc.constantFrom('s', 'timer', 'approval'), sourceId: fc.constantFrom('k1', 'k2') }) },
  { weight: 1, arbitrary: fc.record({ source: fc.anything({ maxDepth: 0 }), sourceId: fc.anything({ maxDepth: 0 }) }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);

const goodId = fc.constantFrom('t1', 't2', 'digest');
const goodDue = fc.integer({ min: T0 - DAY, max: T0 + 30 * DAY });
const goodMissed = fc.constantFrom<'coalesce' | 'each' | undefined>('coalesce', 'each', undefined);
const goodPayload = fc.option(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), { nil: undefined });

/** Valid specs of each kind, so the scheduler has real work to do. */
const validSpecArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ id: goodId, due: goodDue, payload: goodPayload, key: fc.option(keyArb.filter((k) => typeof k === 'object' && k !== null), { nil: undefined }) }),
  fc.record({ id: goodId, due: goodDue, every: fc.constantFrom(1000, 60_000, HOUR, DAY), missed: goodMissed, payload: goodPayload }),
  fc.record({
    id: goodId,
    due: fc.option(goodDue, { nil: undefined }),
    cron: fc.constantFrom(...COARSE_CRONS),
    tz: fc.option(fc.constantFrom('Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe'), { nil: undefined }),
    missed: goodMissed,
  }),
  fc.record({ id: goodId, due: fc.option(goodDue, { nil: undefined }), cron: fc.constantFrom(...FINE_CRONS), missed: goodMissed }),
);

/** Each field present or absent, valid or not. */
const mixedSpecArb: fc.Arbitrary<unknown> = fc.record({
  id: idArb,
  due: maybe(dueArb),
  every: fc.option(everyArb, { nil: undefined, freq: 1 }),
  cron: fc.option(cronArb, { nil: undefined, freq: 1 }),
  tz: fc.option(tzArb, { nil: undefined, freq: 1 }),
  missed: maybe(missedArb),
  payload: maybe(fc.oneof(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), hostileValue())),
  key: fc.option(keyArb, { nil: undefined, freq: 4 }),
});

const dropUndefined = (spec: unknown): unknown =>
  typeof spec === 'object' && spec !== null && !Array.isArray(spec) ? Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== undefined)) : spec;

const specArb: fc.Arbitrary<unknown> = fc
  .oneof({ weight: 4, arbitrary: validSpecArb }, { weight: 6, arbitrary: mixedSpecArb }, { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) })
  .map(dropUndefined);

type Op = { kind: 'add'; spec: unknown } | { kind: 'advance'; ms: number; viaOther: boolean } | { kind: 'remove'; id: unknown };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: specArb.map((spec) => ({ kind: 'add' as const, spec })) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.oneof(fc.integer({ min: 0, max: 2 * HOUR }), fc.integer({ min: 0, max: 3 * DAY }), fc.constantFrom(0, 1, 59_999, 60_000, 40 * DAY)), fc.boolean())
      .map(([ms, viaOther]) => ({ kind: 'advance' as const, ms, viaOther })),
  },
  { weight: 1, arbitrary: idArb.map((id) => ({ kind: 'remove' as const, id })) },
);

describe('fuzz: timers', () => {
  const fixture = useFuzzStore();

  it('addTimer succeeds and is listed, or is invalid_timer/invalid_argument and changes nothing; runScheduler never throws', async () => {
    let added = 0;
    let fired = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        const { store, other, clock } = fixture();
        const id = nextInboxId('timers');
        const inbox = store.inbox(id);
        for (const op of ops) {
          if (op.kind === 'add') {
            const before = await inbox.timers();
            const outcome = await outcomeOf(() => inbox.addTimer(op.spec as TimerSpec));
            if (!outcome.ok) {
              expectVigilCode(outcome, ['invalid_timer', 'invalid_argument']);
              expect(await inbox.timers()).toEqual(before);
              continue;
            }
            added += 1;
            const spec = op.spec as TimerSpec;
            const listed = (await inbox.timers()).filter((timer) => timer.id === spec.id);
            expect(listed).toHaveLength(1);
            const row = listed[0]!;
            expect(row.every).toBe(spec.every ?? null);
            expect(row.cron).toBe(spec.cron ?? null);
            expect(row.tz).toBe(spec.tz ?? null);
            expect(Number.isSafeInteger(row.due)).toBe(true);
            if (spec.due !== undefined) expect(row.due).toBe(spec.due);
          } else if (op.kind === 'remove') {
            const outcome = await outcomeOf(() => inbox.removeTimer(op.id as string));
            if (outcome.ok) expect(typeof outcome.value).toBe('boolean');
            else expectVigilCode(outcome, ['invalid_timer', 'invalid_argument']);
          } else {
            clock.advance(op.ms);
            const outcome = await outcomeOf(() => (op.viaOther ? other : store).inbox(id).runScheduler());
            if (!outcome.ok) throw outcome.error;
            expect(Number.isSafeInteger(outcome.value) && outcome.value >= 0).toBe(true);
            fired += outcome.value;
          }
        }
        // A last pass well in the future: still no throw, and both handles agree.
        clock.advance(30 * DAY);
        await inbox.runScheduler();
        expect(await other.inbox(id).timers()).toEqual(await inbox.timers());
        for (const event of await inbox.events({ limit: 10_000 })) {
          expect(event.source.length).toBeGreaterThan(0);
          expect(event.sourceId.length).toBeLessThanOrEqual(256);
        }
      }),
      { numRuns: 120 },
    );
    // The generators must reach the valid side too, or the property proves little.
    console.log(`timers fuzz: ${added} timers added, ${fired} due occurrences fired`);
    expect(added).toBeGreaterThan(30);
    expect(fired).toBeGreaterThan(30);
  });
});
