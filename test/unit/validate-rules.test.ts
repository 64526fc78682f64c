/**
 * The engine's input rules for timers (R7), reads and their pages, operator
 * actions, ended sessions and per-inbox settings. Each refusal names the
 * field at fault (settings also in `error.field`, for the API to point at);
 * the conformance suite checks the same rules through each store, these pin
 * their edges (found by mutation testing, TESTING.md).
 */
import { describe, expect, it } from 'vitest';
import {
  bucketCount,
  checkText,
  DEFAULT_MAX_WAIT_FACTOR,
  isTimeZone,
  MAX_BUCKETS,
  MAX_TEXT_LENGTH,
  mergePatch,
  patchSettings,
  validateActivityQuery,
  validateEventQuery,
  validateInboxListQuery,
  validateOperatorAction,
  validatePageQuery,
  validateSessionEnd,
  validateSessionId,
  validateSettings,
  validateTimer,
  validateTimerId,
} from '../../src/store/engine/validate/index.js';
import { refusal, refusalError } from './validate-helpers.js';

const MAX = 1_000;

describe('timers (R7)', () => {
  const timer = (spec: Record<string, unknown>) => validateTimer({ id: 't', ...spec }, MAX);
  const refused = (spec: Record<string, unknown>) => refusal(() => timer(spec), 'invalid_timer');

  it('a one-off: due, a payload object ({} when absent), an optional fixed key; missed defaults to coalesce', () => {
    expect(timer({ due: 5 })).toEqual({ id: 't', due: 5, every: null, cron: null, tz: null, missed: 'coalesce', payloadJson: '{}', key: null });
    expect(timer({ due: -5, payload: { a: 1 }, key: { source: 'k', sourceId: '1' }, missed: 'each' })).toEqual({
      id: 't',
      due: -5,
      every: null,
      cron: null,
      tz: null,
      missed: 'each',
      payloadJson: '{"a":1}',
      key: { source: 'k', sourceId: '1' },
    });
  });

  it('recurring: every (positive whole ms) or cron (with an optional tz), never both; a cron timer needs no due', () => {
    expect(timer({ due: 0, every: 1 })).toMatchObject({ every: 1, cron: null });
    expect(timer({ cron: '0 9 * * *', tz: 'Europe/Berlin' })).toMatchObject({ due: null, cron: '0 9 * * *', tz: 'Europe/Berlin', every: null });
    expect(timer({ cron: '0 9 * * *' })).toMatchObject({ due: null, tz: null });
    expect(refused({ due: 0, every: 1, cron: '* * * * *' })).toBe('timer "t": use either every or cron, not both');
    for (const every of [0, -1, 1.5, '60000', 315_576_000_001, 2 ** 53 - 1]) {
      expect(refused({ due: 0, every })).toBe(`timer "t": every must be a whole number of milliseconds from 1 to 315576000000 (ten years), got ${typeof every === 'string' ? `"${every}"` : every}`);
    }
    expect(timer({ due: 0, every: 315_576_000_000 })).toMatchObject({ every: 315_576_000_000 });
    // A due in the year 10000 or later, or before -5999: refused (bounds.ts).
    for (const due of [253_402_300_800_000, -253_402_300_800_000, 2 ** 53 - 1]) expect(refused({ due })).toMatch(/^timer "t": due must be within ±253402300799999 ms of the epoch/);
    expect(timer({ due: 253_402_300_799_999 })).toMatchObject({ due: 253_402_300_799_999 });
  });

  it('refuses what would not be a timer, each saying what is wrong', () => {
    for (const bad of [null, 't', 5]) expect(refusal(() => validateTimer(bad, MAX), 'invalid_timer')).toBe('a timer must be an object');
    expect(refusal(() => validateTimer({ due: 0 }, MAX), 'invalid_timer')).toMatch(/^timer id must be a non-empty string of at most 200 characters/);
    expect(refused({ due: 0, tz: 'UTC' })).toBe('timer "t": tz applies to cron timers only');
    expect(refused({ cron: '' })).toBe('timer "t": cron must be a non-empty pattern string');
    expect(refused({ cron: '   ' })).toBe('timer "t": cron must be a non-empty pattern string');
    expect(refused({ cron: 5 })).toBe('timer "t": cron must be a non-empty pattern string');
    expect(refused({ cron: '* * * * *', tz: 'Mars/Olympus' })).toBe('timer "t": tz "Mars/Olympus" is not an IANA time zone');
    expect(refused({ cron: '* * * * *', tz: 7 })).toBe('timer "t": tz 7 is not an IANA time zone');
    // A time zone is a string, not something that turns into one.
    expect(refused({ cron: '* * * * *', tz: { toString: () => 'UTC' } })).toBe('timer "t": tz a object is not an IANA time zone');
    expect(refused({ cron: 'not a cron' })).toMatch(/^timer "t": cron pattern "not a cron" is invalid: /);
    expect(refused({ due: 0, missed: 'skip' })).toBe(`timer "t": missed must be 'coalesce' or 'each', got "skip"`);
    expect(refused({})).toBe('timer "t": due is required unless the timer has a cron pattern');
    expect(refused({ due: 1.5 })).toBe('timer "t": due must be integer milliseconds, got 1.5');
  });

  it('a fixed key on one-offs only, { source, sourceId } of keys', () => {
    const recurring = 'timer "t": a recurring timer cannot use a fixed event key: each occurrence needs its own';
    expect(refused({ due: 0, every: 10, key: { source: 's', sourceId: '1' } })).toBe(recurring);
    expect(refused({ cron: '* * * * *', key: { source: 's', sourceId: '1' } })).toBe(recurring);
    expect(refused({ due: 0, key: null })).toBe('timer "t": key must be { source, sourceId }');
    expect(refused({ due: 0, key: 'k' })).toBe('timer "t": key must be { source, sourceId }');
    expect(refused({ due: 0, key: { source: '', sourceId: '1' } })).toMatch(/^key\.source must be a non-empty string/);
    expect(refused({ due: 0, key: { source: 's', sourceId: 5 } })).toMatch(/^key\.sourceId must be a non-empty string/);
  });

  it('the payload is a plain object within the size limit', () => {
    const plain = 'timer "t": payload must be a plain object (the scheduler adds scheduledFor, lateBy and skipped to it)';
    for (const payload of [[1], 'x', 5, true]) expect(refused({ due: 0, payload })).toBe(plain);
    expect(timer({ due: 0, payload: null }).payloadJson).toBe('{}');
    expect(refused({ due: 0, payload: { big: 'x'.repeat(MAX) } })).toMatch(/^timer "t": payload is \d+ bytes as JSON; the limit is 1000$/);
  });

  it('timer ids up to 200 characters; time zones are what Intl knows', () => {
    expect(validateTimerId('x'.repeat(200))).toHaveLength(200);
    expect(refusal(() => validateTimerId('x'.repeat(201)), 'invalid_timer')).toMatch(/^timer id must be/);
    expect([isTimeZone('UTC'), isTimeZone('America/New_York'), isTimeZone('Nowhere/City'), isTimeZone('')]).toEqual([true, true, false, false]);
  });
});

describe('event listings', () => {
  it('every field filled: the defaults are oldest first, 100, from the start', () => {
    const all = { status: null, source: null, limit: 100, newestFirst: false, afterId: null };
    expect(validateEventQuery(undefined)).toEqual(all);
    expect(validateEventQuery(null)).toEqual(all);
    expect(validateEventQuery({ status: 'dead', source: 's', limit: 5, newestFirst: true, afterId: 9 })).toEqual({
      status: 'dead',
      source: 's',
      limit: 5,
      newestFirst: true,
      afterId: 9,
    });
    for (const status of ['pending', 'running', 'done', 'dead']) expect(validateEventQuery({ status }).status).toBe(status);
  });

  it('refusals name the field', () => {
    expect(refusal(() => validateEventQuery('dead'), 'invalid_argument')).toBe(
      'an event query must be an object { status?, source?, limit?, newestFirst?, afterId? }, got "dead"',
    );
    expect(refusal(() => validateEventQuery({ status: 'failed' }), 'invalid_argument')).toBe('status must be one of pending, running, done, dead, got "failed"');
    expect(refusal(() => validateEventQuery({ source: '' }), 'invalid_argument')).toMatch(/^source must be a non-empty string/);
    expect(refusal(() => validateEventQuery({ newestFirst: 'yes' }), 'invalid_argument')).toBe('newestFirst must be a boolean, got "yes"');
    expect(refusal(() => validateEventQuery({ afterId: 1.5 }), 'invalid_argument')).toBe('afterId must be an event id (an integer), got 1.5');
    expect(refusal(() => validateEventQuery({ afterId: '3' }), 'invalid_argument')).toMatch(/^afterId must be/);
    expect(refusal(() => validateEventQuery({ limit: 10_001 }), 'invalid_argument')).toMatch(/^limit must be an integer from 1 to 10000/);
  });
});

describe('dashboard pages', () => {
  it('a page is 50 by default, at most 500', () => {
    expect([validatePageQuery(undefined), validatePageQuery(null), validatePageQuery({}), validatePageQuery({ limit: 500 })]).toEqual([50, 50, 50, 500]);
    expect(refusal(() => validatePageQuery({ limit: 501 }), 'invalid_argument')).toBe('limit must be an integer from 1 to 500, got 501');
    expect(refusal(() => validatePageQuery(5), 'invalid_argument')).toBe('the query must be an object { limit? }, got 5');
  });

  it('the overview: search (empty means none), after, limit, attention, stuckAfterMs (60 s by default)', () => {
    const defaults = { search: null, after: null, limit: 50, attention: false, stuckAfterMs: 60_000 };
    expect(validateInboxListQuery(undefined)).toEqual(defaults);
    expect(validateInboxListQuery(null)).toEqual(defaults);
    expect(validateInboxListQuery({ search: '' })).toEqual(defaults);
    expect(validateInboxListQuery({ search: 'team', after: '', limit: 500, attention: true, stuckAfterMs: 0 })).toEqual({
      search: 'team',
      after: '',
      limit: 500,
      attention: true,
      stuckAfterMs: 0,
    });
    expect(refusal(() => validateInboxListQuery('x'), 'invalid_argument')).toBe(
      'an inbox list query must be an object { search?, after?, limit?, attention?, stuckAfterMs? }, got "x"',
    );
    expect(refusal(() => validateInboxListQuery({ search: 5 }), 'invalid_argument')).toBe(`search must be a string of at most ${MAX_TEXT_LENGTH} characters, got 5`);
    expect(refusal(() => validateInboxListQuery({ after: 'x'.repeat(MAX_TEXT_LENGTH + 1) }), 'invalid_argument')).toMatch(/^after must be a string of at most 1000/);
    expect(refusal(() => validateInboxListQuery({ attention: 1 }), 'invalid_argument')).toBe('attention must be a boolean, got 1');
    for (const bad of [-1, 1.5, '60000']) {
      expect(refusal(() => validateInboxListQuery({ stuckAfterMs: bad }), 'invalid_argument')).toMatch(/^stuckAfterMs must be a non-negative integer of milliseconds, got /);
    }
    expect(refusal(() => validateInboxListQuery({ limit: 501 }), 'invalid_argument')).toMatch(/^limit must be an integer from 1 to 500/);
  });

  it('activity: since >= 0 and bucketMs > 0, whole milliseconds', () => {
    expect(validateActivityQuery({ since: 0, bucketMs: 1, extra: true })).toEqual({ since: 0, bucketMs: 1 });
    expect(refusal(() => validateActivityQuery(null), 'invalid_argument')).toBe('an activity query must be an object { since, bucketMs }, got null');
    for (const since of [-1, 1.5, '0', undefined]) {
      expect(refusal(() => validateActivityQuery({ since, bucketMs: 1 }), 'invalid_argument')).toMatch(/^since must be a non-negative integer of milliseconds, got /);
    }
    for (const bucketMs of [0, -1, 1.5, '1']) {
      expect(refusal(() => validateActivityQuery({ since: 0, bucketMs }), 'invalid_argument')).toMatch(/^bucketMs must be a positive integer of milliseconds, got /);
    }
  });

  it('buckets from since to now, the one holding now included; none before since; at most 10,000', () => {
    const q = { since: 1_000, bucketMs: 100 };
    expect([bucketCount(q, 850), bucketCount(q, 999), bucketCount(q, 1_000), bucketCount(q, 1_099), bucketCount(q, 1_100)]).toEqual([0, 0, 1, 1, 2]);
    expect(bucketCount({ since: 0, bucketMs: 1 }, MAX_BUCKETS - 1)).toBe(MAX_BUCKETS);
    expect(refusal(() => bucketCount({ since: 0, bucketMs: 1 }, MAX_BUCKETS), 'invalid_argument')).toBe(
      'since 0 with bucketMs 1 makes 10001 buckets up to now (10000); the limit is 10000: use a later since or larger buckets',
    );
  });

  it('checkText: empty only where allowed, at most 1,000 characters, storable', () => {
    expect(() => checkText('search', '', true)).not.toThrow();
    expect(() => checkText('actor', 'x'.repeat(MAX_TEXT_LENGTH), false)).not.toThrow();
    expect(refusal(() => checkText('actor', '', false), 'invalid_argument')).toBe('actor must be a non-empty string of at most 1000 characters, got ""');
    expect(refusal(() => checkText('search', 'x'.repeat(1_001), true), 'invalid_argument')).toMatch(/^search must be a string of at most 1000 characters/);
    expect(refusal(() => checkText('actor', 'a\u0000', false), 'invalid_argument')).toMatch(/^actor contains the NUL character/);
  });
});

describe('operator actions and ended sessions', () => {
  it('an action is four non-empty texts', () => {
    const action = { actor: 'ana', action: 'redrive', target: 'event 3', result: 'ok' };
    expect(validateOperatorAction({ ...action, at: 5 })).toEqual(action);
    expect(refusal(() => validateOperatorAction(null), 'invalid_argument')).toBe(
      'an operator action must be an object { actor, action, target, result }, got null',
    );
    for (const field of ['actor', 'action', 'target', 'result']) {
      expect(refusal(() => validateOperatorAction({ ...action, [field]: '' }), 'invalid_argument')).toMatch(new RegExp(`^${field} must be a non-empty string`));
    }
  });

  it('a session id is 1 to 128 storable characters; its end a time', () => {
    expect(validateSessionId('x'.repeat(128))).toHaveLength(128);
    for (const bad of ['', 'x'.repeat(129), 5]) {
      expect(refusal(() => validateSessionId(bad), 'invalid_argument')).toMatch(/^session id must be a non-empty string of at most 128 characters, got /);
    }
    expect(refusal(() => validateSessionId('a\uDC00'), 'invalid_argument')).toMatch(/^session id contains a lone UTF-16 surrogate/);
    expect(validateSessionEnd('s', 10)).toEqual({ sessionId: 's', expiresAt: 10 });
    expect(refusal(() => validateSessionEnd('s', 1.5), 'invalid_argument')).toBe('expiresAt must be integer milliseconds, got 1.5');
  });
});

describe('settings', () => {
  const settingsRefusal = (value: unknown): { field: string | undefined; message: string } => {
    const error = refusalError(() => validateSettings(value), 'invalid_settings');
    return { field: error.field, message: error.message };
  };

  it('mergePatch (RFC 7396): null removes, objects merge, anything else replaces', () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 } }, { a: null, b: { c: null, e: 4 }, f: [1] })).toEqual({ b: { d: 3, e: 4 }, f: [1] });
    expect(mergePatch({ a: 1 }, 'x')).toBe('x');
    expect(mergePatch('x', { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(mergePatch({ a: [1, 2] }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(mergePatch({ a: { b: 1 } }, { a: [3] })).toEqual({ a: [3] });
    const target = { a: { b: 1 } };
    mergePatch(target, { a: { b: 2 } });
    expect(target).toEqual({ a: { b: 1 } });
  });

  it('everything at once, with what the SQL needs beside the JSON', () => {
    const full = {
      contacts: { slack: 'D0123', 'e-mail_2': 'ana@example.com' },
      outbox: { gapMs: 0, quietHours: { from: '23:59', to: '00:00', timeZone: 'Europe/Berlin' }, dailyLimit: 3 },
      wake: { debounceMs: 2_000, maxWaitMs: 2_000 },
    };
    expect(validateSettings(full)).toEqual({ settings: full, json: JSON.stringify(full), gapMs: 0, debounceMs: 2_000, maxWaitMs: 2_000 });
    expect(validateSettings({ outbox: { gapMs: 500 } })).toMatchObject({ gapMs: 500, debounceMs: null, maxWaitMs: null });
    expect(validateSettings({})).toEqual({ settings: {}, json: '{}', gapMs: null, debounceMs: null, maxWaitMs: null });
    expect(validateSettings({ outbox: {}, wake: {} })).toEqual({ settings: { outbox: {}, wake: {} }, json: '{"outbox":{},"wake":{}}', gapMs: null, debounceMs: null, maxWaitMs: null });
  });

  it(`a debounce caps its wait at ${DEFAULT_MAX_WAIT_FACTOR} times itself unless maxWaitMs says; a debounce of 0 is none`, () => {
    expect(validateSettings({ wake: { debounceMs: 300 } })).toMatchObject({ debounceMs: 300, maxWaitMs: 3_000 });
    expect(validateSettings({ wake: { debounceMs: 0 } })).toMatchObject({ settings: { wake: { debounceMs: 0 } }, debounceMs: null, maxWaitMs: null });
    expect(validateSettings({ wake: { debounceMs: 0, maxWaitMs: 50 } })).toMatchObject({ debounceMs: null, maxWaitMs: null });
    expect(validateSettings({ wake: { debounceMs: 10, maxWaitMs: 11 } })).toMatchObject({ debounceMs: 10, maxWaitMs: 11 });
  });

  it('refusals name the field, in the message and in error.field', () => {
    expect(settingsRefusal([])).toEqual({ field: undefined, message: 'settings must be an object, got a array' });
    expect(settingsRefusal({ outbx: {} })).toEqual({ field: 'outbx', message: 'settings outbx is not a setting (known here: timeZone, contacts, outbox, wake, limits)' });
    expect(settingsRefusal({ outbox: { gap: 1 } })).toEqual({ field: 'outbox.gap', message: 'settings outbox.gap is not a setting (known here: gapMs, quietHours, dailyLimit)' });
    expect(settingsRefusal({ wake: { debounce: 1 } })).toEqual({ field: 'wake.debounce', message: 'settings wake.debounce is not a setting (known here: debounceMs, maxWaitMs)' });
    expect(settingsRefusal({ contacts: 'x' })).toEqual({ field: 'contacts', message: 'settings contacts must be an object, got "x"' });
    expect(settingsRefusal({ contacts: { 'Big': 'x' } })).toEqual({ field: 'contacts.Big', message: 'settings contacts.Big a channel name is lowercase [a-z0-9_-], up to 64 characters' });
    expect(settingsRefusal({ contacts: { ['c'.repeat(65)]: 'x' } }).field).toBe(`contacts.${'c'.repeat(65)}`);
    expect(validateSettings({ contacts: { ['c'.repeat(64)]: 'x', '0-_': 'y' } }).settings.contacts).toEqual({ ['c'.repeat(64)]: 'x', '0-_': 'y' });
    expect(settingsRefusal({ contacts: { _x: 'a' } }).field).toBe('contacts._x');
    for (const address of ['', 5, 'x'.repeat(1_001)]) {
      expect(settingsRefusal({ contacts: { slack: address } })).toMatchObject({ field: 'contacts.slack', message: expect.stringMatching(/^settings contacts\.slack must be a non-empty string of at most 1000 characters, got /) });
    }
    expect(validateSettings({ contacts: { slack: 'x'.repeat(1_000) } }).settings.contacts!.slack).toHaveLength(1_000);
    expect(settingsRefusal({ contacts: { slack: 'a\u0000b' } })).toEqual({
      field: 'contacts.slack',
      message: 'settings contacts.slack contains the NUL character (\\u0000, at index 1), which cannot be stored as text',
    });
    for (const [field, value] of [['gapMs', -1], ['gapMs', 0.5], ['gapMs', 315_576_000_001], ['gapMs', 2 ** 53 - 1]] as const) {
      expect(settingsRefusal({ outbox: { [field]: value } })).toEqual({ field: `outbox.${field}`, message: `settings outbox.${field} must be a whole number from 0 to 315576000000, got ${value}` });
    }
    for (const [field, value] of [['dailyLimit', '3'], ['dailyLimit', null], ['dailyLimit', 1_000_000_001]] as const) {
      expect(settingsRefusal({ outbox: { [field]: value } })).toEqual({ field: `outbox.${field}`, message: `settings outbox.${field} must be a whole number from 0 to 1000000000, got ${typeof value === 'string' ? `"${value}"` : value}` });
    }
    expect(validateSettings({ outbox: { gapMs: 315_576_000_000, dailyLimit: 1_000_000_000 }, wake: { debounceMs: 315_576_000_000, maxWaitMs: 315_576_000_000 } }).gapMs).toBe(315_576_000_000);
    expect(settingsRefusal({ wake: { debounceMs: 315_576_000_001 } }).field).toBe('wake.debounceMs');
    expect(settingsRefusal({ wake: { debounceMs: 5, maxWaitMs: 315_576_000_001 } }).field).toBe('wake.maxWaitMs');
    expect(settingsRefusal({ wake: { debounceMs: -1 } }).field).toBe('wake.debounceMs');
    expect(settingsRefusal({ wake: { debounceMs: 5, maxWaitMs: -1 } }).field).toBe('wake.maxWaitMs');
    expect(settingsRefusal({ wake: { maxWaitMs: 5 } })).toEqual({ field: 'wake.maxWaitMs', message: 'settings wake.maxWaitMs caps a debounce: set wake.debounceMs with it' });
    expect(settingsRefusal({ wake: { debounceMs: 10, maxWaitMs: 9 } })).toEqual({ field: 'wake.maxWaitMs', message: 'settings wake.maxWaitMs must be at least wake.debounceMs (10), got 9' });
  });

  it('quiet hours: "HH:MM" from and to that differ, and an IANA time zone', () => {
    const hours = (more: Record<string, unknown>) => settingsRefusal({ outbox: { quietHours: { from: '22:00', to: '07:00', timeZone: 'UTC', ...more } } });
    expect(validateSettings({ outbox: { quietHours: { from: '00:00', to: '23:59', timeZone: 'UTC' } } }).settings.outbox!.quietHours).toEqual({ from: '00:00', to: '23:59', timeZone: 'UTC' });
    expect(validateSettings({ outbox: { quietHours: { from: '19:05', to: '20:30', timeZone: 'UTC' } } }).settings.outbox!.quietHours!.from).toBe('19:05');
    for (const from of ['24:00', '7:00', '07:60', '07:00:00', ' 07:00', 7]) {
      expect(hours({ from })).toEqual({ field: 'outbox.quietHours.from', message: `settings outbox.quietHours.from must be a time of day "HH:MM" (00:00 to 23:59), got ${typeof from === 'string' ? JSON.stringify(from) : from}` });
    }
    expect(hours({ to: '25:00' }).field).toBe('outbox.quietHours.to');
    // A time of day is a string, not something that prints as one.
    expect(hours({ from: ['22:00'] })).toEqual({ field: 'outbox.quietHours.from', message: 'settings outbox.quietHours.from must be a time of day "HH:MM" (00:00 to 23:59), got a array' });
    expect(hours({ timeZone: 'Mars/Olympus' })).toEqual({ field: 'outbox.quietHours.timeZone', message: 'settings outbox.quietHours.timeZone must be an IANA time zone such as "Europe/Berlin", got "Mars/Olympus"' });
    expect(hours({ timeZone: 5 }).field).toBe('outbox.quietHours.timeZone');
    expect(hours({ to: '22:00' })).toEqual({ field: 'outbox.quietHours', message: 'settings outbox.quietHours from and to are both 22:00: quiet hours need a start and a different end' });
    expect(hours({ days: 'mon' }).field).toBe('outbox.quietHours.days');
    expect(settingsRefusal({ outbox: { quietHours: '22-7' } })).toEqual({ field: 'outbox.quietHours', message: 'settings outbox.quietHours must be an object, got "22-7"' });
  });

  it('patchSettings: the patch merged into the current settings, emptied objects pruned, then the whole checked', () => {
    const current = { outbox: { gapMs: 5, dailyLimit: 2 }, contacts: { slack: 'D1' } };
    expect(patchSettings(current, { outbox: { gapMs: null } }).settings).toEqual({ outbox: { dailyLimit: 2 }, contacts: { slack: 'D1' } });
    expect(patchSettings(current, { outbox: { gapMs: null, dailyLimit: null } }).settings).toEqual({ contacts: { slack: 'D1' } });
    expect(patchSettings({ wake: { debounceMs: 5 } }, { wake: { debounceMs: null } }).json).toBe('{}');
    // A nested empty object inside another empty one goes too.
    expect(patchSettings({}, { outbox: { quietHours: {} } }).settings).toEqual({});
    expect(refusal(() => patchSettings(current, [1]), 'invalid_settings')).toBe('settings a settings patch must be an object, got a array');
    expect(refusal(() => patchSettings(current, null), 'invalid_settings')).toMatch(/^settings a settings patch must be an object, got null/);
    // The result is checked whole: a patch that only adds maxWaitMs to settings without a debounce is refused.
    expect(refusalError(() => patchSettings(current, { wake: { maxWaitMs: 5 } }), 'invalid_settings').field).toBe('wake.maxWaitMs');
  });
});
