/**
 * Bugs the fuzz properties found, each as its minimal case, kept as
 * regression tests now that they are fixed in src/.
 */
import { describe, expect, it } from 'vitest';
import { VigilError } from '../../src/index.js';
import { useFuzzStore } from './fuzz-kit.js';

const DAY = 86_400_000;
const MINUTE = 60_000;

async function refused(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VigilError);
  expect((error as VigilError).code).toBe(code);
  expect((error as Error).message).toContain('lone UTF-16 surrogate');
}

describe('found by fuzzing', () => {
  const fixture = useFuzzStore();

  // Accepted, then stored by SQLite as replacement characters: 'x\uD800' read back as
  // 'x\uFFFD\uFFFD\uFFFD', another key. Now refused, like any other bad key.
  it('keys, ids and message bodies with a lone surrogate are refused, and nothing is stored', async () => {
    const inbox = fixture().store.inbox('surrogates');
    await refused(inbox.ingest({ source: 's', sourceId: 'x\uD800' }), 'invalid_event');
    await refused(inbox.ingest({ source: '\uDC00s', sourceId: 'x' }), 'invalid_event');
    await refused(inbox.addTimer({ id: 't\uD800', due: 1 }), 'invalid_timer');
    await refused(inbox.requestApproval({ id: 'a\uDFFF', expiresInMs: 1_000, action: 'x' }), 'invalid_argument');
    expect(await inbox.events()).toEqual([]);
    expect(await inbox.timers()).toEqual([]);
    // A well-formed pair is fine.
    expect(await inbox.ingest({ source: 's', sourceId: 'emoji \uD83D\uDE00' })).toBe(true);
    expect((await inbox.events()).map((row) => row.sourceId)).toEqual(['emoji \uD83D\uDE00']);
  });

  it('a memory key or a message body with a lone surrogate fails the finish whole', async () => {
    const inbox = fixture().store.inbox('surrogate-memory');
    await inbox.ingest({ source: 's', sourceId: '1' });
    const gen = (await inbox.acquire('w'))!;
    const [event] = await inbox.claimBatch('w', gen);
    await refused(inbox.finish('w', gen, [event!.id], { memory: { set: { 'k\uDC00': 1 } } }), 'invalid_memory');
    await refused(inbox.finish('w', gen, [event!.id], { messages: ['half a pair: \uD800'] }), 'invalid_argument');
    expect(await inbox.getMemory()).toEqual({});
    expect((await inbox.stats()).outbox.held).toBe(0);
    expect((await inbox.getEvent('s', '1'))!.status).toBe('running');
  });

  // A coalesced cron timer with a time zone ~70 days behind counted up to 100,000 matches
  // with croner (~0.4 ms each in a tz): one scheduler pass held the inbox for 30-50 s.
  // Counting now stops at MAX_CRON_COUNT (1,000), the same cap as 'each'.
  it('a coalesced cron timer far behind counts its skipped matches only up to the cap, and fires its latest match', async () => {
    const { store, clock } = fixture();
    const inbox = store.inbox('cron-tz-behind');
    await inbox.addTimer({ id: 'every-minute', cron: '* * * * *', tz: 'Europe/Berlin' });
    clock.advance(70 * DAY);
    expect(await inbox.runScheduler()).toBe(1);
    const [fired] = await inbox.events();
    const payload = fired!.payload as { scheduledFor: number; skipped: number };
    expect(payload.skipped).toBe(1_000);
    expect(payload.scheduledFor).toBeLessThanOrEqual(clock.now());
    expect(payload.scheduledFor).toBeGreaterThan(clock.now() - MINUTE);
    expect((await inbox.timers())[0]!.due).toBeGreaterThan(clock.now());
  });
});
