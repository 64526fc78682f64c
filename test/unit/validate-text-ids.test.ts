/**
 * The engine's input rules on their own (src/store/engine/validate/): the
 * text and key rules every store keeps (contract.ts, "Ids and keys"), ids,
 * generations, limits and times. Each refusal is a VigilError whose code a
 * caller branches on and whose message names the field to fix and what it
 * was given; the conformance suite checks the same rules through each
 * store, these pin the edges (found by mutation testing, TESTING.md).
 */
import { describe, expect, it } from 'vitest';
import {
  caseCollision,
  checkKey,
  checkStorable,
  describe as describeValue,
  INBOX_ID_PATTERN,
  MAX_KEY_LENGTH,
  storableText,
  validateEventId,
  validateEventIds,
  validateGen,
  validateHolder,
  validateInboxId,
  validateLimit,
  validateTime,
} from '../../src/store/engine/validate/index.js';
import { refusal } from './validate-helpers.js';

describe('describe: a value as a refusal shows it', () => {
  it('strings quoted, cut after 60 characters; numbers, booleans, null and undefined as they print; anything else by its kind', () => {
    expect(describeValue('abc')).toBe('"abc"');
    expect(describeValue('x'.repeat(60))).toBe(`"${'x'.repeat(60)}"`);
    expect(describeValue('x'.repeat(61))).toBe(`"${'x'.repeat(60)}…"`);
    expect([1.5, NaN, true, null, undefined].map(describeValue)).toEqual(['1.5', 'NaN', 'true', 'null', 'undefined']);
    expect([[1], { a: 1 }, () => 1, 1n].map(describeValue)).toEqual(['a array', 'a object', 'a function', 'a bigint']);
  });
});

describe('checkStorable and storableText', () => {
  it('refuses a lone surrogate (either half) and NUL, naming the field and where', () => {
    expect(refusal(() => checkStorable('invalid_event', 'source', 'ab\uD800c'), 'invalid_event')).toBe(
      'source contains a lone UTF-16 surrogate (at index 2), which cannot be stored as text',
    );
    expect(refusal(() => checkStorable('invalid_event', 'source', '\uDC00'), 'invalid_event')).toContain('lone UTF-16 surrogate (at index 0)');
    expect(refusal(() => checkStorable('invalid_event', 'source', 'a\uD800'), 'invalid_event')).toContain('(at index 1)');
    expect(refusal(() => checkStorable('invalid_argument', 'holder', 'abc\u0000'), 'invalid_argument')).toBe(
      'holder contains the NUL character (\\u0000, at index 3), which cannot be stored as text',
    );
  });

  it('keeps a surrogate pair, and every other character', () => {
    expect(() => checkStorable('invalid_event', 'source', 'a😀b\u0001\uFFFF')).not.toThrow();
  });

  it('storableText turns every NUL and lone surrogate into U+FFFD and keeps pairs', () => {
    expect(storableText('a\u0000b\u0000\uD800c\uDC00😀')).toBe('a\uFFFDb\uFFFD\uFFFDc\uFFFD😀');
    expect(storableText('plain')).toBe('plain');
  });
});

describe('checkKey', () => {
  it(`a non-empty string of at most ${MAX_KEY_LENGTH} code units by default, or the length given`, () => {
    expect(() => checkKey('invalid_event', 'source', 'x'.repeat(MAX_KEY_LENGTH))).not.toThrow();
    expect(refusal(() => checkKey('invalid_event', 'source', 'x'.repeat(MAX_KEY_LENGTH + 1)), 'invalid_event')).toBe(
      `source must be a non-empty string of at most 256 characters, got "${'x'.repeat(60)}…"`,
    );
    expect(refusal(() => checkKey('invalid_event', 'sourceId', ''), 'invalid_event')).toBe('sourceId must be a non-empty string of at most 256 characters, got ""');
    expect(refusal(() => checkKey('invalid_timer', 'timer id', 7, 200), 'invalid_timer')).toBe('timer id must be a non-empty string of at most 200 characters, got 7');
    expect(() => checkKey('invalid_timer', 'timer id', 'x'.repeat(200), 200)).not.toThrow();
    expect(refusal(() => checkKey('invalid_timer', 'timer id', 'x'.repeat(201), 200), 'invalid_timer')).toContain('at most 200 characters');
  });

  it('and storable, refused with the same code', () => {
    expect(refusal(() => checkKey('invalid_memory', 'a memory key', 'a\u0000'), 'invalid_memory')).toContain('a memory key contains the NUL character');
  });
});

describe('validateLimit and validateTime', () => {
  it('a limit is an integer from 1 to the maximum (10,000 unless given)', () => {
    expect([validateLimit(1), validateLimit(10_000), validateLimit(500, 500)]).toEqual([1, 10_000, 500]);
    expect(refusal(() => validateLimit(0), 'invalid_argument')).toBe('limit must be an integer from 1 to 10000, got 0');
    expect(refusal(() => validateLimit(10_001), 'invalid_argument')).toBe('limit must be an integer from 1 to 10000, got 10001');
    expect(refusal(() => validateLimit(501, 500), 'invalid_argument')).toBe('limit must be an integer from 1 to 500, got 501');
    for (const bad of [1.5, '5', NaN, Infinity, null]) refusal(() => validateLimit(bad), 'invalid_argument');
  });

  it('a time is integer milliseconds, negative included; refused with the code given', () => {
    expect([validateTime('due', 0), validateTime('due', -5), validateTime('due', Number.MAX_SAFE_INTEGER)]).toEqual([0, -5, Number.MAX_SAFE_INTEGER]);
    expect(refusal(() => validateTime('expiresAt', 1.5), 'invalid_argument')).toBe('expiresAt must be integer milliseconds, got 1.5');
    expect(refusal(() => validateTime('due', '5', 'invalid_timer'), 'invalid_timer')).toBe('due must be integer milliseconds, got "5"');
    refusal(() => validateTime('due', 2 ** 53), 'invalid_argument');
  });
});

describe('ids', () => {
  it('an inbox id: 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit', () => {
    for (const id of ['a', 'A9', '0', 'a.b_c-d', 'x'.repeat(128)]) expect(validateInboxId(id)).toBe(id);
    for (const id of ['', '.hidden', '-x', '_x', 'a/b', 'a b', 'x'.repeat(129), 'é', 'a\n']) {
      expect(refusal(() => validateInboxId(id), 'invalid_inbox_id')).toBe(
        `inbox id ${describeValue(id)} is invalid: use 1-128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit`,
      );
    }
    refusal(() => validateInboxId(42), 'invalid_inbox_id');
    expect(INBOX_ID_PATTERN.test('ok-1')).toBe(true);
  });

  it('a case collision names both ids', () => {
    const error = caseCollision('Alice', 'alice');
    expect([error.code, error.message]).toEqual([
      'invalid_inbox_id',
      'inbox "Alice" cannot be created: inbox "alice" exists, and two inbox ids may not differ only in case (a file system that ignores case would give them one file)',
    ]);
  });

  it('a holder is a key', () => {
    expect(validateHolder('worker-1')).toBe('worker-1');
    expect(refusal(() => validateHolder(''), 'invalid_argument')).toContain('holder must be a non-empty string');
  });

  it('a generation and an event id are positive safe integers', () => {
    expect([validateGen(1), validateEventId(1), validateEventId(Number.MAX_SAFE_INTEGER)]).toEqual([1, 1, Number.MAX_SAFE_INTEGER]);
    expect(refusal(() => validateGen(0), 'invalid_argument')).toBe('gen must be a positive integer, got 0');
    expect(refusal(() => validateEventId(-1), 'invalid_argument')).toBe('event id must be a positive integer, got -1');
    for (const bad of [1.5, '1', NaN, 2 ** 53, null]) {
      refusal(() => validateGen(bad), 'invalid_argument');
      refusal(() => validateEventId(bad), 'invalid_argument');
    }
  });

  it('event ids: an array, each checked, duplicates dropped in order', () => {
    expect(validateEventIds([3, 1, 3, 2, 1])).toEqual([3, 1, 2]);
    expect(validateEventIds([])).toEqual([]);
    expect(refusal(() => validateEventIds(5), 'invalid_argument')).toBe('ids must be an array of event ids');
    expect(refusal(() => validateEventIds([1, 0]), 'invalid_argument')).toContain('event id must be a positive integer, got 0');
  });
});
