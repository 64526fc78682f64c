/**
 * The engine's input rules for what a caller hands the store to keep:
 * events (R1), approvals (R8), a run's outcome (R3, R5, R6) with its
 * session and memory, and JSON values. Each refusal names the field at
 * fault; the conformance suite checks the same rules through each store,
 * these pin their edges (found by mutation testing, TESTING.md).
 */
import { describe, expect, it } from 'vitest';
import {
  MEMORY_LIMITS,
  memoryFull,
  NO_MEMORY_CHANGES,
  toJson,
  validateAnswer,
  validateApprovalId,
  validateApprovalRequest,
  validateEvent,
  validateEvents,
  validateMemoryChanges,
  validateMemoryKey,
  validateMemoryValue,
  validateOutcome,
  validateSession,
} from '../../src/store/engine/validate/index.js';
import { refusal } from './validate-helpers.js';

const MAX = 1_000;

describe('toJson', () => {
  it('refuses JSON over maxBytes as UTF-8, saying how large; exactly maxBytes is kept', () => {
    // '"éé"' is 6 bytes as UTF-8 (4 characters).
    expect(toJson('invalid_event', 'payload', 'éé', 6)).toBe('"éé"');
    expect(refusal(() => toJson('invalid_event', 'payload', 'éé', 5), 'invalid_event')).toBe('payload is 6 bytes as JSON; the limit is 5');
  });

  it('refuses what JSON would drop or change at the top, naming its kind', () => {
    expect(refusal(() => toJson('invalid_event', 'payload', undefined, MAX), 'invalid_event')).toBe('payload is a undefined, which is not JSON-serialisable');
    expect(refusal(() => toJson('invalid_event', 'payload', Symbol('s'), MAX), 'invalid_event')).toBe('payload is a symbol, which is not JSON-serialisable');
    expect(refusal(() => toJson('invalid_timer', 'payload', -Infinity, MAX), 'invalid_timer')).toBe('payload is -Infinity, which JSON cannot represent');
  });

  it('a class instance is named by its constructor, or as a class instance when it has none', () => {
    class Point {
      x = 1;
    }
    expect(refusal(() => toJson('invalid_event', 'payload', { p: new Point() }, MAX), 'invalid_event')).toBe('payload.p is a Point; use plain objects and arrays');
    const orphan = Object.create(Object.create(null) as object) as object;
    expect(refusal(() => toJson('invalid_event', 'payload', [orphan], MAX), 'invalid_event')).toBe('payload[0] is a class instance; use plain objects and arrays');
  });

  it('keeps strings, booleans, null, dates, objects without a prototype; leaves undefined properties out as JSON does', () => {
    const date = new Date(0);
    expect(toJson('invalid_event', 'payload', { s: 'x', b: false, n: null, d: date, u: undefined, a: [1, 'two'] }, MAX)).toBe(
      '{"s":"x","b":false,"n":null,"d":"1970-01-01T00:00:00.000Z","a":[1,"two"]}',
    );
    expect(toJson('invalid_event', 'payload', true, MAX)).toBe('true');
    // Checked past the undefined: the problem after it is still found.
    expect(refusal(() => toJson('invalid_event', 'payload', { u: undefined, f: NaN }, MAX), 'invalid_event')).toBe('payload.f is NaN, which JSON cannot represent');
  });

  it('the same array in two places is not a cycle; an array inside itself is', () => {
    const shared = [1];
    expect(toJson('invalid_event', 'payload', [shared, shared], MAX)).toBe('[[1],[1]]');
    const loop: unknown[] = [];
    loop.push(loop);
    expect(refusal(() => toJson('invalid_event', 'payload', loop, MAX), 'invalid_event')).toBe('payload[0] contains a cycle, which is not JSON-serialisable');
  });
});

describe('events (R1)', () => {
  it('an object with two keys and a payload (null when absent), serialised once', () => {
    expect(validateEvent({ source: 's', sourceId: '1', payload: { a: 1 } }, MAX)).toEqual({ source: 's', sourceId: '1', payloadJson: '{"a":1}' });
    expect(validateEvent({ source: 's', sourceId: '1' }, MAX)).toEqual({ source: 's', sourceId: '1', payloadJson: 'null' });
  });

  it('refusals name the field', () => {
    for (const [bad, got] of [[null, 'null'], ['event', '"event"'], [5, '5']] as const) {
      expect(refusal(() => validateEvent(bad, MAX), 'invalid_event')).toBe(`an event must be an object { source, sourceId, payload? }, got ${got}`);
    }
    expect(refusal(() => validateEvent({ sourceId: '1' }, MAX), 'invalid_event')).toMatch(/^source must be/);
    expect(refusal(() => validateEvent({ source: 's', sourceId: '' }, MAX), 'invalid_event')).toMatch(/^sourceId must be/);
    expect(refusal(() => validateEvent({ source: 's', sourceId: '1', payload: 'x'.repeat(MAX) }, MAX), 'invalid_event')).toBe(
      `payload is ${MAX + 2} bytes as JSON; the limit is ${MAX}`,
    );
  });

  it('many: an array, a refusal saying which event; an error that is not a refusal passes through unchanged', () => {
    expect(validateEvents([], MAX)).toEqual([]);
    expect(validateEvents([{ source: 's', sourceId: '1' }], MAX)).toHaveLength(1);
    expect(refusal(() => validateEvents({ source: 's' }, MAX), 'invalid_event')).toBe('ingestMany takes an array of events');
    expect(refusal(() => validateEvents([{ source: 's', sourceId: '1' }, { source: 's' }], MAX), 'invalid_event')).toMatch(/^event 1: sourceId must be/);
    const boom = new Error('a getter threw');
    const payload = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw boom;
      },
    });
    expect(() => validateEvents([{ source: 's', sourceId: '1', payload }], MAX)).toThrow(boom);
  });
});

describe('approvals (R8)', () => {
  it('a request: an id, a positive whole expiresInMs, an action (null when absent)', () => {
    expect(validateApprovalRequest({ id: 'a', expiresInMs: 1, action: { x: 1 } }, MAX)).toEqual({ id: 'a', expiresInMs: 1, actionJson: '{"x":1}', remindInMs: null });
    expect(validateApprovalRequest({ id: 'a', expiresInMs: 5 }, MAX).actionJson).toBe('null');
    for (const [bad, got] of [[null, 'null'], ['a', '"a"'], [5, '5']] as const) {
      expect(refusal(() => validateApprovalRequest(bad, MAX), 'invalid_argument')).toBe(`an approval request must be an object { id, expiresInMs, action }, got ${got}`);
    }
    expect(refusal(() => validateApprovalRequest({ id: '', expiresInMs: 1 }, MAX), 'invalid_argument')).toMatch(/^approval id must be/);
    for (const bad of [0, -1, 1.5, '10', undefined, 315_576_000_001, 2 ** 53 - 1]) {
      expect(refusal(() => validateApprovalRequest({ id: 'a', expiresInMs: bad }, MAX), 'invalid_argument')).toMatch(/^expiresInMs must be a whole number of milliseconds from 1 to 315576000000 \(ten years\), got /);
    }
    expect(validateApprovalRequest({ id: 'a', expiresInMs: 315_576_000_000 }, MAX).expiresInMs).toBe(315_576_000_000);
    // A reminder: its share of the approval's life, as a delay in ms (rounded); null asks none.
    expect(validateApprovalRequest({ id: 'a', expiresInMs: 1_000, remindAt: 0.75 }, MAX).remindInMs).toBe(750);
    expect(validateApprovalRequest({ id: 'a', expiresInMs: 3, remindAt: 0.5 }, MAX).remindInMs).toBe(2);
    expect(validateApprovalRequest({ id: 'a', expiresInMs: 1_000, remindAt: null }, MAX).remindInMs).toBeNull();
    for (const bad of [0, 1, -0.1, 1.1, Number.NaN, Number.POSITIVE_INFINITY, '0.5', {}]) {
      expect(refusal(() => validateApprovalRequest({ id: 'a', expiresInMs: 1_000, remindAt: bad as number }, MAX), 'invalid_argument')).toMatch(/^remindAt must be a share of the approval's life between 0 and 1 \(exclusive\), or null for no reminder, got /);
    }
    expect(refusal(() => validateApprovalRequest({ id: 'a', expiresInMs: 1, action: 'x'.repeat(MAX) }, MAX), 'invalid_argument')).toMatch(/^action is \d+ bytes/);
  });

  it("an id is a key; an answer is 'yes' or 'no'", () => {
    expect(validateApprovalId('a')).toBe('a');
    expect([validateAnswer('yes'), validateAnswer('no')]).toEqual(['yes', 'no']);
    for (const bad of ['expired', 'YES', true, undefined]) {
      expect(refusal(() => validateAnswer(bad), 'invalid_argument')).toMatch(/^an approval answer is 'yes' or 'no', got /);
    }
  });
});

describe('session and memory', () => {
  it('a session: undefined leaves it, null clears it, a value is JSON within the size limit', () => {
    expect(validateSession(undefined, MAX)).toBeUndefined();
    expect(validateSession(null, MAX)).toBeNull();
    expect(validateSession({ turn: 1 }, MAX)).toBe('{"turn":1}');
    expect(refusal(() => validateSession('x'.repeat(MAX), MAX), 'invalid_argument')).toMatch(/^outcome\.session is \d+ bytes/);
  });

  it('memory keys up to 200 characters; values JSON up to 64 KiB, undefined refused', () => {
    expect(validateMemoryKey('k'.repeat(MEMORY_LIMITS.keyLength))).toBe('k'.repeat(200));
    expect(refusal(() => validateMemoryKey('k'.repeat(201)), 'invalid_memory')).toMatch(/^a memory key must be a non-empty string of at most 200 characters/);
    expect(validateMemoryValue('k', [1])).toBe('[1]');
    expect(refusal(() => validateMemoryValue('k', undefined), 'invalid_memory')).toBe('memory "k": undefined is not a value (delete the key instead)');
    const big = 'x'.repeat(MEMORY_LIMITS.valueBytes - 2); // with its quotes: exactly the limit
    expect(validateMemoryValue('k', big)).toHaveLength(MEMORY_LIMITS.valueBytes);
    expect(refusal(() => validateMemoryValue('k', `${big}x`), 'invalid_memory')).toBe('memory "k" is 65537 bytes as JSON; the limit is 65536');
  });

  it('changes: { set?, delete? }, each key checked, no key both set and deleted', () => {
    expect(validateMemoryChanges(undefined)).toBe(NO_MEMORY_CHANGES);
    expect(NO_MEMORY_CHANGES).toEqual({ set: [], delete: [] });
    expect(validateMemoryChanges({})).toEqual({ set: [], delete: [] });
    expect(validateMemoryChanges({ set: { a: 1, b: 'two' }, delete: ['c'] })).toEqual({
      set: [
        { key: 'a', json: '1' },
        { key: 'b', json: '"two"' },
      ],
      delete: ['c'],
    });
    for (const bad of [null, [], 'x']) expect(refusal(() => validateMemoryChanges(bad), 'invalid_memory')).toBe('outcome.memory must be an object { set?, delete? }');
    for (const bad of [null, [], 'x']) expect(refusal(() => validateMemoryChanges({ set: bad }), 'invalid_memory')).toBe('outcome.memory.set must be an object of key: value');
    expect(refusal(() => validateMemoryChanges({ delete: 'a' }), 'invalid_memory')).toBe('outcome.memory.delete must be an array of keys');
    expect(refusal(() => validateMemoryChanges({ delete: [''] }), 'invalid_memory')).toMatch(/^a memory key must be/);
    expect(refusal(() => validateMemoryChanges({ set: { a: 1 }, delete: ['b', 'a'] }), 'invalid_memory')).toBe('memory "a" is both set and deleted');
  });

  it('memory_full says how large the memory would be and the limit', () => {
    const error = memoryFull(2_000_000);
    expect([error.code, error.message]).toEqual([
      'memory_full',
      "this finish would leave the inbox's memory at 2000000 bytes; the limit is 1048576: delete keys first. Nothing of the finish was saved",
    ]);
  });
});

describe('a run outcome (R3, R5, R6)', () => {
  const NOTHING = { messages: [], error: null, dead: false, session: undefined, memory: { set: [], delete: [] }, approvals: [], usage: null, effects: [], intents: [] };

  it('none, or an empty one, is success with nothing to save', () => {
    expect(validateOutcome(undefined, MAX)).toEqual(NOTHING);
    expect(validateOutcome({}, MAX)).toEqual(NOTHING);
  });

  it('messages: strings or { body, urgent? }, each non-empty, storable and within the size limit', () => {
    expect(validateOutcome({ messages: ['a', { body: 'b' }, { body: 'c', urgent: true }, { body: 'd', urgent: false }] }, MAX).messages).toEqual([
      { body: 'a', urgent: false },
      { body: 'b', urgent: false },
      { body: 'c', urgent: true },
      { body: 'd', urgent: false },
    ]);
    expect(refusal(() => validateOutcome({ messages: 'hi' }, MAX), 'invalid_argument')).toBe('outcome.messages must be an array');
    for (const bad of ['', { body: '' }, { urgent: true }, null, 5]) {
      expect(refusal(() => validateOutcome({ messages: ['ok', bad] }, MAX), 'invalid_argument')).toBe('outcome.messages[1] needs a non-empty string body');
    }
    expect(validateOutcome({ messages: ['é'.repeat(MAX / 2)] }, MAX).messages).toHaveLength(1);
    expect(refusal(() => validateOutcome({ messages: ['é'.repeat(MAX / 2) + 'x'] }, MAX), 'invalid_argument')).toBe(`outcome.messages[0] is larger than ${MAX} bytes`);
    expect(refusal(() => validateOutcome({ messages: [{ body: 'a', urgent: 'yes' }] }, MAX), 'invalid_argument')).toBe('outcome.messages[0].urgent must be a boolean');
    expect(refusal(() => validateOutcome({ messages: ['a\u0000'] }, MAX), 'invalid_argument')).toMatch(/^outcome\.messages\[0\] contains the NUL character/);
  });

  it('an error: a non-empty storable string; its messages are dropped (R5)', () => {
    expect(validateOutcome({ error: 'failed', messages: ['lost'] }, MAX)).toEqual({ ...NOTHING, error: 'failed' });
    for (const bad of ['', 5, null]) expect(refusal(() => validateOutcome({ error: bad }, MAX), 'invalid_argument')).toBe('outcome.error must be a non-empty string');
    expect(refusal(() => validateOutcome({ error: '\uD800' }, MAX), 'invalid_argument')).toMatch(/^outcome\.error contains a lone UTF-16 surrogate/);
  });

  it('dead: a boolean, and only with an error (R6)', () => {
    expect(validateOutcome({ error: 'bad input', dead: true }, MAX)).toMatchObject({ error: 'bad input', dead: true });
    expect(validateOutcome({ error: 'retry me', dead: false }, MAX).dead).toBe(false);
    expect(refusal(() => validateOutcome({ error: 'x', dead: 'yes' }, MAX), 'invalid_argument')).toBe('outcome.dead must be a boolean');
    expect(refusal(() => validateOutcome({ dead: true }, MAX), 'invalid_argument')).toBe('outcome.dead needs an outcome.error: the reason the events are dead');
    expect(validateOutcome({ dead: false }, MAX).dead).toBe(false);
  });

  it('a session, memory or approvals only with success', () => {
    const onlyWithSuccess = 'outcome.session, outcome.memory and outcome.approvals are saved only with a successful outcome, not with an error';
    for (const extra of [{ session: null }, { memory: {} }, { approvals: [] }]) {
      expect(refusal(() => validateOutcome({ error: 'x', ...extra }, MAX), 'invalid_argument')).toBe(onlyWithSuccess);
    }
    const ok = validateOutcome({ session: { s: 1 }, memory: { set: { k: 1 } }, approvals: [{ id: 'a', expiresInMs: 5, action: 'x' }] }, MAX);
    expect(ok).toEqual({
      ...NOTHING,
      session: '{"s":1}',
      memory: { set: [{ key: 'k', json: '1' }], delete: [] },
      approvals: [{ id: 'a', expiresInMs: 5, actionJson: '"x"', remindInMs: null }],
    });
    expect(validateOutcome({ session: null }, MAX).session).toBeNull();
    expect(refusal(() => validateOutcome({ approvals: { id: 'a' } }, MAX), 'invalid_argument')).toBe('outcome.approvals must be an array of { id, expiresInMs, action }');
    expect(refusal(() => validateOutcome({ approvals: [{ id: 'a', expiresInMs: 0 }] }, MAX), 'invalid_argument')).toMatch(/^expiresInMs must be/);
  });

  it('the ledger: settlements with any outcome, intents only with success; each checked', () => {
    const settled = validateOutcome({ error: 'x', effects: [{ key: 'k', state: 'failed' }] }, MAX);
    expect(settled.effects).toEqual([{ key: 'k', state: 'failed' }]);
    expect(refusal(() => validateOutcome({ error: 'x', intents: [] }, MAX), 'invalid_argument')).toBe('outcome.intents are recorded only with a successful outcome, not with an error');
    expect(refusal(() => validateOutcome({ effects: {} }, MAX), 'invalid_argument')).toBe('outcome.effects must be an array of { key, state }');
    expect(refusal(() => validateOutcome({ effects: [{ key: 'k', state: 'started' }] }, MAX), 'invalid_argument')).toMatch(/confirmed' or 'failed'/);
    expect(refusal(() => validateOutcome({ intents: [{ key: 'k', tool: 't', input: 'no' }] }, MAX), 'invalid_argument')).toMatch(/input must be a JSON object/);
    const { intents } = validateOutcome({ intents: [{ key: 'k', tool: 't', input: { b: 1, a: 2 } }] }, MAX);
    // The hash is of the input's stable JSON: the same however its keys were ordered.
    expect(intents[0]!.inputHash).toBe(validateOutcome({ intents: [{ key: 'k', tool: 't', input: { a: 2, b: 1 } }] }, MAX).intents[0]!.inputHash);
  });

  it('not an object: refused', () => {
    for (const bad of [null, 'ok', 5]) {
      expect(refusal(() => validateOutcome(bad, MAX), 'invalid_argument')).toBe('outcome must be an object { messages?, error?, dead?, session?, memory? }');
    }
  });
});
