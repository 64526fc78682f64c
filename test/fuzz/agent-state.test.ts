/**
 * Fuzz: memory and session saved by finish(..., { memory, session }) with
 * arbitrary keys and values. A finish either saves all of it or is a
 * VigilError (invalid_memory, memory_full, invalid_argument) that saves
 * nothing: memory, session and the claimed event stay as they were.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MEMORY_LIMITS, type Inbox, type RunOutcome } from '../../src/index.js';
import { expectVigilCode, hostileValue, jsonRoundTrip, KEYS_WITH_LONE_SURROGATES, nastyString, nextInboxId, outcomeOf, useFuzzStore } from './fuzz-kit.js';

const memKey = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'prefs', 'notes') },
  { weight: 3, arbitrary: nastyString({ loneSurrogates: KEYS_WITH_LONE_SURROGATES }) },
  { weight: 1, arbitrary: fc.constantFrom('k'.repeat(MEMORY_LIMITS.keyLength), 'k'.repeat(MEMORY_LIMITS.keyLength + 1)) },
);
const memValue = fc.oneof(
  { weight: 6, arbitrary: hostileValue() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, 'v'.repeat(MEMORY_LIMITS.valueBytes - 2), 'v'.repeat(MEMORY_LIMITS.valueBytes)) },
);
/** Seventeen values of 62 KB: more than the 1 MB an inbox's memory may hold. */
const overfill: RunOutcome['memory'] = { set: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`fill-${i}`, 'f'.repeat(62_000)])) };

const memoryArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ set: fc.dictionary(memKey, memValue, { maxKeys: 4 }), delete: fc.array(memKey, { maxLength: 3 }) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.constant(overfill) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);
const outcomeArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ memory: memoryArb, session: fc.oneof(hostileValue(), fc.constant(null)) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.record({ error: fc.constantFrom<unknown>('boom', '', 3), memory: memoryArb, session: hostileValue() }, { requiredKeys: ['error'] }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);

async function claimOne(inbox: Inbox, n: number): Promise<{ gen: number; eventId: number }> {
  await inbox.ingest({ source: 's', sourceId: String(n) });
  const gen = await inbox.acquire('w');
  if (gen === null) throw new Error('no lease');
  const [event] = await inbox.claimBatch('w', gen);
  if (event === undefined) throw new Error('nothing claimed');
  return { gen, eventId: event.id };
}

describe('fuzz: memory and session', () => {
  const fixture = useFuzzStore();

  it('a finish saves all of its memory and session, or fails with a code and saves none of it', async () => {
    let saved = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(outcomeArb, { minLength: 1, maxLength: 5 }), async (outcomes) => {
        const { store, other } = fixture();
        const id = nextInboxId('state');
        const inbox = store.inbox(id);
        let memory: Record<string, unknown> = {};
        let session: unknown = null;
        for (const [n, outcome] of outcomes.entries()) {
          const { gen, eventId } = await claimOne(inbox, n);
          const result = await outcomeOf(() => inbox.finish('w', gen, [eventId], outcome as RunOutcome));
          if (!result.ok) {
            refused += 1;
            expectVigilCode(result, ['invalid_memory', 'memory_full', 'invalid_argument']);
            expect(await inbox.getMemory()).toEqual(memory);
            expect(await inbox.getSession()).toEqual(session);
            expect((await inbox.events({ limit: 10_000 })).find((e) => e.id === eventId)?.status).toBe('running');
            // Leave the event behind: a failed finish with a plain error ends this run.
            expect(await inbox.finish('w', gen, [eventId], { error: 'refused by the fuzz', dead: true })).toBe(true);
            continue;
          }
          expect(result.value).toBe(true);
          const { memory: changes, session: newSession, error } = (outcome ?? {}) as RunOutcome;
          if (error === undefined) {
            saved += 1;
            const next = { ...memory };
            for (const key of changes?.delete ?? []) delete next[key];
            for (const [key, value] of Object.entries(changes?.set ?? {})) next[key] = jsonRoundTrip(value);
            memory = next;
            if (newSession !== undefined) session = newSession === null ? null : jsonRoundTrip(newSession);
          }
          expect(await inbox.getMemory()).toEqual(memory);
          expect(await inbox.getSession()).toEqual(session);
        }
        expect(await other.inbox(id).getMemory()).toEqual(memory);
        expect(await other.inbox(id).getSession()).toEqual(session);
      }),
      { numRuns: 150 },
    );
    console.log(`memory fuzz: ${saved} finishes saved, ${refused} refused`);
    expect(saved).toBeGreaterThan(30);
    expect(refused).toBeGreaterThan(30);
  });
});
