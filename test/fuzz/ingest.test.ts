/**
 * Fuzz: ingest and ingestMany with anything as source, sourceId and payload.
 * The only outcomes are true/false or a VigilError invalid_event; a refused
 * call stores nothing; a stored payload reads back as JSON would carry it,
 * through both handles; a repeated key is false.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventRow, Inbox, NewEvent } from '../../src/index.js';
import { expectVigilCode, hostileValue, jsonRoundTrip, keyish, nextInboxId, outcomeOf, useFuzzStore } from './fuzz-kit.js';

const SOURCES = ['github', 's', 'timer', 'approval'];
const IDS = ['1', '2', 'd-3', 'x'];

/** An event-ish value: usually { source, sourceId, payload? }, sometimes not an object at all. */
const eventArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({ source: keyish(SOURCES), sourceId: keyish(IDS), payload: hostileValue() }, { requiredKeys: ['source', 'sourceId'] }),
  },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);

type Op = { kind: 'one'; event: unknown } | { kind: 'many'; events: unknown };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: eventArb.map((event) => ({ kind: 'one' as const, event })) },
  { weight: 2, arbitrary: fc.array(eventArb, { maxLength: 5 }).map((events) => ({ kind: 'many' as const, events })) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }).map((events) => ({ kind: 'many' as const, events })) },
);

const keyOf = (source: string, sourceId: string): string => JSON.stringify([source, sourceId]);
const rowsOf = (inbox: Inbox): Promise<EventRow[]> => inbox.events({ limit: 10_000 });

describe('fuzz: ingest', () => {
  const fixture = useFuzzStore();

  it('true/false or invalid_event; nothing stored on refusal; payloads read back as JSON; repeats are false', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 6 }), async (ops) => {
        const { store, other } = fixture();
        const id = nextInboxId('ingest');
        const inbox = store.inbox(id);
        /** key -> the payload as it must read back */
        const model = new Map<string, unknown>();
        for (const op of ops) {
          const before = await rowsOf(inbox);
          const outcome =
            op.kind === 'one'
              ? await outcomeOf(() => inbox.ingest(op.event as NewEvent))
              : await outcomeOf(() => inbox.ingestMany(op.events as NewEvent[]));
          if (!outcome.ok) {
            expectVigilCode(outcome, ['invalid_event']);
            expect(await rowsOf(inbox)).toEqual(before);
            continue;
          }
          const events = (op.kind === 'one' ? [op.event] : (op.events as unknown[])) as NewEvent[];
          const results = op.kind === 'one' ? [outcome.value as boolean] : (outcome.value as boolean[]);
          expect(results).toHaveLength(events.length);
          events.forEach((event, i) => {
            const key = keyOf(event.source, event.sourceId);
            expect(results[i]).toBe(!model.has(key));
            if (!model.has(key)) model.set(key, jsonRoundTrip(event.payload === undefined ? null : event.payload));
          });
        }
        const rows = await rowsOf(inbox);
        expect(rows.map((row) => keyOf(row.source, row.sourceId))).toEqual([...model.keys()]);
        for (const row of rows) expect(row.payload).toEqual(model.get(keyOf(row.source, row.sourceId)));
        // The other handle (another process) sees exactly the same rows.
        expect(await rowsOf(other.inbox(id))).toEqual(rows);
      }),
      { numRuns: 200 },
    );
  });

  it('a repeated key is false however often it comes, and keeps the first payload', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), fc.array(hostileValue(), { maxLength: 4 }), async (first, later) => {
        const inbox = fixture().store.inbox(nextInboxId('repeat'));
        expect(await inbox.ingest({ source: 's', sourceId: 'k', payload: first })).toBe(true);
        for (const payload of later) {
          const outcome = await outcomeOf(() => inbox.ingest({ source: 's', sourceId: 'k', payload }));
          if (outcome.ok) expect(outcome.value).toBe(false);
          else expectVigilCode(outcome, ['invalid_event']);
        }
        const rows = await rowsOf(inbox);
        expect(rows).toHaveLength(1);
        expect(rows[0]!.payload).toEqual(jsonRoundTrip(first));
      }),
      { numRuns: 100 },
    );
  });
});
