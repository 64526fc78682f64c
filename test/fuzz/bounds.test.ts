/**
 * Fuzz: numbers within and beyond the documented bounds (BOUNDS,
 * engine/validate/bounds.ts) in settings (through the real HTTP app),
 * timers and imported records (issue 49, findings 1 and 6). Whatever the
 * input: no 5xx, never an inbox left stuck (its next run acquires, claims,
 * finishes and releases), and never a failed read of another inbox (the
 * overview reads every inbox, none unreadable). Seeded by fuzz-kit.ts
 * (FUZZ_SEED); fast-check prints the seed and the shrunk input on failure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOUNDS, type InboxRecord, type Store, type TimerSpec } from '../../src/index.js';
import { signIn } from '../dashboard/dashboard-suite.js';
import { SECRETS, useHttpApps } from '../http/http-harness.js';
import { expectVigilCode, FUZZ_SEED, nextInboxId, outcomeOf, T0, useFuzzStore } from './fuzz-kit.js';

const MAX_MS = BOUNDS.maxDurationMs;
const auth = { authorization: `Bearer ${SECRETS.token}`, 'content-type': 'application/merge-patch+json' };

/** Numbers at, just past and far past each bound, and the ordinary ones between. */
const edgeNumber = (max: number): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0, max: 100_000 }) },
    { weight: 2, arbitrary: fc.constantFrom(max, max - 1, max + 1, 2 ** 31 - 1, 2 ** 31, 2 ** 50, 2 ** 53 - 1, 2 ** 53, 8.64e15, BOUNDS.maxTimeMs, BOUNDS.maxTimeMs + 1) },
    { weight: 1, arbitrary: fc.constantFrom(-1, -(2 ** 53 - 1), 0.5, Number.NaN, Infinity, 1e300, '1000', null) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }) },
  );

/** This inbox's row of the overview reads (cheap, per run); expectOverviewReads checks them all once at the end. */
async function expectListed(store: Store, inboxId: string): Promise<void> {
  const { inboxes } = await store.listInboxes({ search: inboxId, limit: 10 });
  const own = inboxes.find((summary) => summary.id === inboxId);
  expect(own?.unreadable, `${inboxId}: ${String(own?.unreadable)}`).toBeNull();
}

/** The overview reads every inbox and none is unreadable: no one's row broke a read of anyone's. */
async function expectOverviewReads(store: Store): Promise<void> {
  const ids = await store.inboxes();
  for (let after: string | undefined; ; ) {
    const page = await store.listInboxes({ limit: 100, ...(after === undefined ? {} : { after }) });
    for (const summary of page.inboxes) expect(summary.unreadable, `${summary.id}: ${summary.unreadable}`).toBeNull();
    if (page.next === null) break;
    after = page.next;
  }
  expect(ids.length).toBeGreaterThan(0);
}

/** The inbox is not stuck: its next worker acquires, claims, finishes and releases, and nothing stays running. */
async function expectRunsThrough(store: Store, inboxId: string, advance: (ms: number) => void): Promise<void> {
  const inbox = store.inbox(inboxId);
  for (let round = 0; round < 3; round++) {
    advance(BOUNDS.maxTimerDelayMs); // past any lease and retry backoff an import could leave
    const gen = await inbox.acquire('fuzz-worker');
    expect(gen, 'acquire').not.toBeNull();
    const claimed = await inbox.claimBatch('fuzz-worker', gen!);
    expect(await inbox.finish('fuzz-worker', gen!, claimed.map((event) => event.id))).toBe(true);
    expect(await inbox.release('fuzz-worker', gen!)).toBe(true);
  }
  expect((await inbox.stats()).events.running).toBe(0);
}

describe('fuzz: bounds', () => {
  const apps = useHttpApps();

  it('PATCH settings with numbers within and past the bounds: 200 or a 4xx JSON naming the field, never a 5xx; paced sends and the overview still read', async () => {
    const t = await apps.make();
    const cookie = await signIn(t);
    let accepted = 0;
    let refused = 0;
    const patchArb = fc.record(
      {
        outbox: fc.record({ gapMs: edgeNumber(MAX_MS), dailyLimit: edgeNumber(BOUNDS.maxCount) }, { requiredKeys: [] }),
        wake: fc.record({ debounceMs: edgeNumber(MAX_MS), maxWaitMs: edgeNumber(MAX_MS) }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(patchArb, fc.integer({ min: 0, max: 3 }), async (patch, sends) => {
        const id = nextInboxId('set');
        const res = await t.app.hono.request(`/inboxes/${id}/settings`, { method: 'PATCH', body: JSON.stringify(patch), headers: auth });
        expect(res.status, `${res.status} for ${JSON.stringify(patch)} (seed ${FUZZ_SEED})`).toBeLessThan(500);
        const body = (await res.json()) as { error?: { code: string; field?: string } };
        if (res.status === 200) accepted += 1;
        else {
          refused += 1;
          expect([res.status, body.error?.code]).toEqual([400, 'invalid_settings']);
          expect(typeof body.error?.field).toBe('string');
          return;
        }
        const inbox = t.store.inbox(id);
        for (let n = 0; n < sends; n++) {
          const gen = (await inbox.acquire('w'))!;
          await inbox.finish('w', gen, [], { messages: [`m${n}`] });
          await inbox.release('w', gen);
          await inbox.dispatch(() => undefined);
          t.clock.advance(60_000);
        }
        const { nextSendAt } = await t.store.view(id).outbox();
        if (nextSendAt !== null) expect(Number.isNaN(new Date(nextSendAt).getTime())).toBe(false);
        await inbox.ingest({ source: 'fuzz', sourceId: 'e' });
        await expectListed(t.store, id);
        expect((await t.app.hono.request('/', { headers: { cookie } })).status).toBe(200);
      }),
      { numRuns: 60 },
    );
    await expectOverviewReads(t.store);
    console.log(`bounds fuzz, settings: ${accepted} accepted, ${refused} refused`);
    expect(accepted).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(5);
  }, 120_000); // ~5 s alone
});

describe('fuzz: bounds on a store', () => {
  const fixture = useFuzzStore();

  it('timers with every and due around the bounds: added or invalid_timer; the scheduler fires them across decades, every next due a date', async () => {
    let added = 0;
    const specArb = fc.record(
      {
        id: fc.constantFrom('a', 'b'),
        due: fc.oneof(edgeNumber(BOUNDS.maxTimeMs), fc.integer({ min: T0 - 1_000, max: T0 + MAX_MS })),
        every: edgeNumber(MAX_MS),
        missed: fc.constantFrom('coalesce', 'each'),
      },
      { requiredKeys: ['id', 'due'] },
    );
    const jumpArb = fc.constantFrom(1, 60_000, MAX_MS, MAX_MS + 1, 2 * MAX_MS);
    await fc.assert(
      fc.asyncProperty(fc.array(specArb, { minLength: 1, maxLength: 3 }), fc.array(jumpArb, { minLength: 1, maxLength: 3 }), async (specs, jumps) => {
        const { store, clock } = fixture();
        const id = nextInboxId('bt');
        const inbox = store.inbox(id);
        await inbox.ingest({ source: 'fuzz', sourceId: 'first' });
        for (const spec of specs) {
          const outcome = await outcomeOf(() => inbox.addTimer(spec as TimerSpec));
          if (outcome.ok) added += 1;
          else expectVigilCode(outcome, ['invalid_timer']);
        }
        for (const jump of jumps) {
          clock.advance(jump);
          await inbox.runScheduler();
          for (const timer of await inbox.timers()) expect(Number.isNaN(new Date(timer.due).getTime()), `due ${timer.due}`).toBe(false);
        }
        await expectListed(store, id);
        await expectRunsThrough(store, id, (ms) => clock.advance(ms));
        clock.set(T0);
      }),
      { numRuns: 80 },
    );
    await expectOverviewReads(fixture().store);
    console.log(`bounds fuzz, timers: ${added} added`);
    expect(added).toBeGreaterThan(20);
  }, 120_000); // ~5 s alone; the margin is for a machine busy with other suites

  it('imports of records with fields within and past the bounds: all written or invalid_argument naming the record and nothing written; an imported inbox runs', async () => {
    let imported = 0;
    let refused = 0;
    const base = (): InboxRecord[] => [
      { type: 'lease', gen: 3 },
      { type: 'pacing', lastPacedAt: T0, notBefore: T0 + 1, day: '2001-09-09', daySends: 1 },
      { type: 'event', source: 's', sourceId: 'run', payload: {}, status: 'running', attempts: 1, error: null, lastError: null, receivedAt: T0, finishedAt: null, claimGen: 3, lastClaimAt: T0 },
      { type: 'event', source: 's', sourceId: 'new', payload: {}, status: 'pending', attempts: 0, error: null, lastError: null, receivedAt: T0, finishedAt: null, claimGen: null, lastClaimAt: null },
      { type: 'approval', id: 'ap', action: null, requestedAt: T0, expiresAt: T0 + 1_000, answer: null, answeredAt: null },
      { type: 'timer', id: 't', due: T0, every: 60_000, cron: null, tz: null, missed: 'coalesce', done: false, payload: {}, key: null, lastSkipped: null },
    ];
    /** One numeric field of one record set to an edge value. */
    const mutationArb = fc.tuple(
      fc.constantFrom<[number, string]>([0, 'gen'], [1, 'notBefore'], [1, 'daySends'], [2, 'claimGen'], [2, 'attempts'], [2, 'lastClaimAt'], [2, 'receivedAt'], [3, 'receivedAt'], [4, 'expiresAt'], [5, 'due'], [5, 'every'], [5, 'lastSkipped']),
      fc.oneof(edgeNumber(BOUNDS.maxGeneration), fc.integer({ min: 0, max: 10 })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(mutationArb, { maxLength: 3 }), async (mutations) => {
        const { store, clock } = fixture();
        const id = nextInboxId('bi');
        const records = base().map((record) => ({ ...record })) as Record<string, unknown>[];
        for (const [[index, field], value] of mutations) records[index]![field] = value;
        const outcome = await outcomeOf(() => store.importInbox(id, records as unknown as InboxRecord[]));
        if (!outcome.ok) {
          refused += 1;
          expect(expectVigilCode(outcome, ['invalid_argument']).message).toMatch(/^record \d+ \((lease|pacing|event|approval|timer)\): /);
          expect(await store.inboxes()).not.toContain(id);
          return;
        }
        imported += 1;
        await store.inbox(id).runScheduler();
        await expectListed(store, id);
        await expectRunsThrough(store, id, (ms) => clock.advance(ms));
        clock.set(T0);
      }),
      { numRuns: 100 },
    );
    await expectOverviewReads(fixture().store);
    console.log(`bounds fuzz, imports: ${imported} imported, ${refused} refused`);
    expect(imported).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(10);
  }, 120_000); // ~8 s alone
});
