/**
 * Fuzz: approvals (R8) with arbitrary ids, expiries, actions and answers.
 * requestApproval resolves or is invalid_argument; answerApproval returns
 * only yes/no/expired/unknown or is invalid_argument; once an outcome
 * stands it stays; the approval event is stored at most once per id.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest } from '../../src/index.js';
import { expectVigilCode, hostileValue, KEYS_WITH_LONE_SURROGATES, nastyString, nextInboxId, outcomeOf, useFuzzStore } from './fuzz-kit.js';

const idArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a1', 'a2', 'refund-42') },
  { weight: 3, arbitrary: nastyString({ loneSurrogates: KEYS_WITH_LONE_SURROGATES }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);
const expiresArb = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 3_600_000 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -1, 0.5, 2 ** 53, 2 ** 53 - 1, NaN, Infinity, '60000', null, undefined) },
);
const answerArb = fc.oneof({ weight: 4, arbitrary: fc.constantFrom<unknown>('yes', 'no') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('YES', 'y', '', 'expired', true, 1, null, undefined) });

type Op =
  | { kind: 'request'; request: unknown }
  | { kind: 'answer'; id: unknown; answer: unknown }
  | { kind: 'advance'; ms: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        { weight: 8, arbitrary: fc.record({ id: idArb, expiresInMs: expiresArb, action: hostileValue() }, { requiredKeys: ['id', 'expiresInMs'] }) },
        { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
      )
      .map((request) => ({ kind: 'request' as const, request })),
  },
  { weight: 4, arbitrary: fc.record({ id: idArb, answer: answerArb }).map(({ id, answer }) => ({ kind: 'answer' as const, id, answer })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 2 * 3_600_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
);

describe('fuzz: approvals', () => {
  const fixture = useFuzzStore();

  it('only documented outcomes or invalid_argument; an outcome that stands stays; one approval event per id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 10 }), fc.boolean(), async (ops, answerViaOther) => {
        const { store, other, clock } = fixture();
        const id = nextInboxId('approvals');
        const inbox = store.inbox(id);
        const answering = (answerViaOther ? other : store).inbox(id);
        const standing = new Map<string, string>();
        for (const op of ops) {
          if (op.kind === 'request') {
            const before = await inbox.events({ limit: 10_000 });
            const outcome = await outcomeOf(() => inbox.requestApproval(op.request as ApprovalRequest));
            if (!outcome.ok) {
              expectVigilCode(outcome, ['invalid_argument']);
              expect(await inbox.events({ limit: 10_000 })).toEqual(before);
            }
          } else if (op.kind === 'answer') {
            const outcome = await outcomeOf(() => answering.answerApproval(op.id as string, op.answer as ApprovalAnswer));
            if (!outcome.ok) {
              expectVigilCode(outcome, ['invalid_argument']);
              continue;
            }
            expect(['yes', 'no', 'expired', 'unknown']).toContain(outcome.value);
            const key = op.id as string;
            if (outcome.value === 'unknown') continue;
            if (standing.has(key)) expect(outcome.value).toBe(standing.get(key));
            else standing.set(key, outcome.value);
          } else {
            clock.advance(op.ms);
            await inbox.runScheduler();
          }
        }
        const approvalEvents = (await inbox.events({ limit: 10_000 })).filter((event) => event.source === 'approval');
        const ids = approvalEvents.map((event) => event.sourceId);
        expect(new Set(ids).size).toBe(ids.length);
        // An answer that stands is the one in the stored event.
        for (const [approvalId, outcome] of standing) {
          const event = approvalEvents.find((e) => e.sourceId === approvalId);
          expect(event, `no approval event for ${JSON.stringify(approvalId)} though ${outcome} stands`).toBeDefined();
          expect((event!.payload as { answer: string }).answer).toBe(outcome);
        }
      }),
      { numRuns: 200 },
    );
  });
});
