/** The scheduler's plan (engine/scheduler.ts): the payload each occurrence's event carries. */
import { describe, expect, it } from 'vitest';
import { occurrencePayload } from '../../src/store/engine/scheduler.js';

describe('occurrencePayload', () => {
  it.each([
    ['an empty payload', {}],
    ['plain fields', { kind: 'digest', n: 3, nested: { a: [1, 2] } }],
    ['keys JavaScript puts first (integer-like)', { b: 1, 2: 'two', 1: 'one' }],
    ['a field the occurrence overrides', { scheduledFor: 'mine', other: true }],
    ['a value that mentions a field name', { note: 'see "lateBy" below' }],
    ['text that needs escaping', { text: 'é "quoted" \\ \n ✓' }],
  ])('%s: exactly JSON.stringify({ ...payload, scheduledFor, lateBy, skipped })', (_name, payload) => {
    const json = JSON.stringify(payload);
    expect(occurrencePayload(json, 1_000, 25, 3)).toBe(JSON.stringify({ ...(JSON.parse(json) as object), scheduledFor: 1_000, lateBy: 25, skipped: 3 }));
  });
});
