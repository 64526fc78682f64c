/**
 * A payload JSON would store as something else is refused, and the error
 * says where inside it the problem is, so a caller can find it in a large
 * webhook body.
 */
import { describe, expect, it } from 'vitest';
import { VigilError } from '../../src/index.js';
import { toJson } from '../../src/store/engine/validate/index.js';
import { MAX_STORED_DEPTH } from '../../src/store/engine/validate/json.js';

function refusal(value: unknown): string {
  try {
    toJson('invalid_event', 'payload', value, 1 << 20);
  } catch (error) {
    expect(error).toBeInstanceOf(VigilError);
    expect((error as VigilError).code).toBe('invalid_event');
    return (error as Error).message;
  }
  throw new Error('accepted');
}

describe('toJson', () => {
  it.each([
    ['payload.a[2] is NaN, which JSON cannot represent', { a: [1, 2, Number.NaN] }],
    ['payload.a.b.c is Infinity, which JSON cannot represent', { a: { b: { c: Infinity } } }],
    ['payload[1].f is a function, which is not JSON-serialisable', [{ ok: true }, { f: () => 1 }]],
    ['payload.n is a bigint, which is not JSON-serialisable', { n: 1n }],
    ['payload.m is a Map; use plain objects and arrays', { m: new Map() }],
    ['payload is NaN, which JSON cannot represent', Number.NaN],
  ])('says: %s', (message, value) => {
    expect(refusal(value)).toBe(message);
  });

  it('names a cycle at the object that repeats', () => {
    const inner: Record<string, unknown> = {};
    inner.back = { to: inner };
    expect(refusal({ list: [inner] })).toBe('payload.list[0].back.to contains a cycle, which is not JSON-serialisable');
  });

  it(`refuses a value nested deeper than ${MAX_STORED_DEPTH} levels as a whole, however deep (no stack overflow), and accepts one at the limit`, () => {
    const nested = (levels: number): unknown => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
      return value;
    };
    const message = `payload nests deeper than ${MAX_STORED_DEPTH} levels of arrays and objects`;
    expect(refusal(nested(100_000))).toBe(message);
    expect(refusal({ ok: nested(MAX_STORED_DEPTH) })).toBe(message);
    expect(JSON.parse(toJson('invalid_event', 'payload', nested(MAX_STORED_DEPTH), 1 << 20))).toEqual(nested(MAX_STORED_DEPTH));
  });

  it('accepts the same object twice when it is not a cycle, and plain JSON of every kind', () => {
    const shared = { x: 1 };
    const value = { a: shared, b: [shared, shared], s: 'é', t: true, n: null, d: -0.5, o: Object.create(null) as object };
    expect(JSON.parse(toJson('invalid_event', 'payload', value, 1 << 20))).toEqual(JSON.parse(JSON.stringify(value)));
  });
});
