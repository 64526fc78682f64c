/**
 * Fuzz: inbox ids are names, never paths (R11). Any string either makes a
 * working inbox or is a VigilError invalid_inbox_id; after any sequence of
 * ingests every file is inside the data dir, the temp dir around it holds
 * nothing else, and every file is `<valid id>.db` (with -wal/-shm) or the
 * store's own `_vigil-ready.db*`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VigilError } from '../../src/index.js';
import { INBOX_ID_PATTERN } from '../../src/store/engine/validate/index.js';
import { expectVigilCode, nastyString, outcomeOf, useFuzzStore } from './fuzz-kit.js';

/** Every file under `dir`, as paths relative to it. */
function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path).map((inner) => join(name, inner)) : [name];
  });
}

const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: nastyString() },
  // Near misses of the valid pattern: valid characters plus one stray one.
  { weight: 3, arbitrary: fc.tuple(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,10}$/), fc.constantFrom('', '/', '\\', '\u0000', '..', ' ', '%', ':', 'é')).map(([a, b]) => a + b) },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9._-]{1,140}$/) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
);

const FILE_NAME = /^(.+)\.db(-wal|-shm|-journal)?$/;

describe('fuzz: inbox ids', () => {
  const fixture = useFuzzStore();

  it('any id works or is invalid_inbox_id, and no file ever lands outside the data dir', async () => {
    const made = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(idArb, fc.boolean()), { minLength: 1, maxLength: 5 }), async (ids) => {
        const { store, other, parent, dir } = fixture();
        for (const [id, viaOther] of ids) {
          const valid = typeof id === 'string' && INBOX_ID_PATTERN.test(id);
          const outcome = await outcomeOf(() => (viaOther ? other : store).inbox(id as string));
          if (!outcome.ok) {
            expect(valid).toBe(false);
            expectVigilCode(outcome, ['invalid_inbox_id']);
            continue;
          }
          expect(valid).toBe(true);
          const inbox = outcome.value;
          expect(inbox.id).toBe(id);
          const stored = await inbox.ingest({ source: 's', sourceId: 'once', payload: { id } });
          expect(stored).toBe(!made.has(id as string));
          made.add(id as string);
        }
        expect(readdirSync(parent)).toEqual(['data']);
        for (const file of walk(dir)) {
          expect(relative(dir, join(dir, file)).startsWith('..')).toBe(false);
          const match = FILE_NAME.exec(file);
          expect(match, `unexpected file ${JSON.stringify(file)} in the data dir`).not.toBeNull();
          const name = match![1]!;
          if (name !== '_vigil-ready') {
            expect(INBOX_ID_PATTERN.test(name), `file ${JSON.stringify(file)} is not named for a valid inbox id`).toBe(true);
            expect(made.has(name), `file ${JSON.stringify(file)} is for an inbox never written`).toBe(true);
          }
        }
        expect([...(await store.inboxes())].sort()).toEqual([...made].sort());
      }),
      { numRuns: 200 },
    );
  });

  it('an invalid id is refused synchronously by store.inbox, before any I/O', () => {
    fc.assert(
      fc.property(idArb, (id) => {
        const { store } = fixture();
        if (typeof id === 'string' && INBOX_ID_PATTERN.test(id)) return;
        try {
          store.inbox(id as string);
        } catch (error) {
          expect(error).toBeInstanceOf(VigilError);
          expect((error as VigilError).code).toBe('invalid_inbox_id');
          return;
        }
        throw new Error(`inbox(${JSON.stringify(id)}) was accepted`);
      }),
      { numRuns: 300 },
    );
  });
});
