/**
 * importInbox's records (engine/validate/inbox-record.ts) on their own:
 * each record type as the store keeps it, and each field's refusal, by the
 * message that names the record and the field. The import itself, through
 * each store, is in test/conformance/inbox-data.ts.
 */
import { describe, expect, it } from 'vitest';
import { validateRecord, validateRecords } from '../../src/store/engine/validate/inbox-record.js';
import { validateSettings } from '../../src/store/engine/validate/settings.js';
import { refusal } from './validate-helpers.js';

const MAX = 1_000;

const good = {
  settings: { type: 'settings', settings: { contacts: { slack: 'U1' } } },
  lease: { type: 'lease', gen: 3 },
  pacing: { type: 'pacing', lastPacedAt: 10, notBefore: 20, day: '2026-01-15', daySends: 2 },
  event: {
    type: 'event',
    source: 'github',
    sourceId: '1',
    payload: { n: 1 },
    status: 'running',
    attempts: 1,
    error: 'boom',
    lastError: 'boom',
    receivedAt: 5,
    finishedAt: null,
    claimGen: 2,
    lastClaimAt: 6,
  },
  tombstone: { type: 'tombstone', source: 'github', sourceId: 'old' },
  message: {
    type: 'message',
    body: 'hi',
    urgent: true,
    channel: 'slack',
    createdAt: 1,
    sentAt: 2,
    failures: [{ channel: 'email', kind: 'undeliverable', error: 'no address', failedAt: 3, redrivenAt: 4 }],
  },
  approval: { type: 'approval', id: 'refund-1', action: { cents: 5 }, requestedAt: 1, expiresAt: 9, answer: 'yes', answeredAt: 2 },
  timer: { type: 'timer', id: 'poll', due: 100, every: 60_000, cron: null, tz: null, missed: 'coalesce', done: false, payload: { k: 1 }, key: null, lastSkipped: 2 },
  memory: { type: 'memory', key: 'name', value: { first: 'Alice' }, updatedAt: 7 },
  session: { type: 'session', state: { turns: [] }, updatedAt: 8 },
  action: { type: 'action', at: 9, actor: 'ops', action: 'redrive', target: 'event 1', result: 'ok' },
} as const;

type Kind = keyof typeof good;
const check = (record: unknown, n = 1) => validateRecord(record, n, MAX);
const refused = (record: unknown, n = 1) => refusal(() => check(record, n), 'invalid_argument');
const withField = (kind: Kind, field: string, value: unknown) => ({ ...good[kind], [field]: value });

describe('validateRecord: each type as the store keeps it', () => {
  it('settings, lease, pacing, tombstone', () => {
    expect(check(good.settings)).toEqual({ type: 'settings', settings: validateSettings({ contacts: { slack: 'U1' } }) });
    expect(check(good.lease)).toEqual({ type: 'lease', gen: 3 });
    expect(check(good.pacing)).toEqual({ type: 'pacing', lastPacedAt: 10, notBefore: 20, day: '2026-01-15', daySends: 2 });
    expect(check({ ...good.pacing, lastPacedAt: null, notBefore: null, day: null, daySends: 0 })).toEqual({
      type: 'pacing',
      lastPacedAt: null,
      notBefore: null,
      day: null,
      daySends: 0,
    });
    expect(check(good.tombstone)).toEqual({ type: 'tombstone', source: 'github', sourceId: 'old' });
  });

  it('events in every status, the payload serialised once (absent as null)', () => {
    expect(check(good.event)).toEqual({
      type: 'event',
      source: 'github',
      sourceId: '1',
      payloadJson: '{"n":1}',
      status: 'running',
      attempts: 1,
      error: 'boom',
      lastError: 'boom',
      receivedAt: 5,
      finishedAt: null,
      claimGen: 2,
      lastClaimAt: 6,
    });
    const { payload: _payload, ...noPayload } = good.event;
    expect(check({ ...noPayload, status: 'pending', attempts: 0, error: null, lastError: null, claimGen: null, lastClaimAt: null })).toMatchObject({
      payloadJson: 'null',
      status: 'pending',
      error: null,
      lastError: null,
      claimGen: null,
      lastClaimAt: null,
    });
    expect(check({ ...good.event, status: 'done', error: null, finishedAt: 7 })).toMatchObject({ status: 'done', finishedAt: 7, lastError: 'boom' });
    expect(check({ ...good.event, status: 'dead', finishedAt: 7 })).toMatchObject({ status: 'dead', finishedAt: 7, error: 'boom' });
    // A redriven event: back to pending, never claimed since.
    expect(check({ ...good.event, status: 'pending', attempts: 0, error: null, claimGen: null, lastClaimAt: null })).toMatchObject({ status: 'pending', claimGen: null });
    // A failed attempt: pending again, its claim and error kept for the backoff.
    expect(check({ ...good.event, status: 'pending' })).toMatchObject({ status: 'pending', claimGen: 2, error: 'boom' });
  });

  it('messages, with and without a channel, sent or held, with failures open or redriven', () => {
    expect(check(good.message)).toEqual({
      type: 'message',
      body: 'hi',
      urgent: true,
      channel: 'slack',
      createdAt: 1,
      sentAt: 2,
      failures: [{ channel: 'email', kind: 'undeliverable', error: 'no address', failedAt: 3, redrivenAt: 4 }],
    });
    const held = { ...good.message, urgent: false, channel: null, sentAt: null, failures: [{ channel: 'sms', kind: 'rejected', error: 'no', failedAt: 3, redrivenAt: null }] };
    expect(check(held)).toEqual({ ...held, failures: [{ channel: 'sms', kind: 'rejected', error: 'no', failedAt: 3, redrivenAt: null }] });
    expect(check({ ...good.message, failures: [] })).toMatchObject({ failures: [] });
  });

  it('approvals open, answered and expired; the action serialised (absent as null)', () => {
    expect(check(good.approval)).toEqual({ type: 'approval', id: 'refund-1', actionJson: '{"cents":5}', requestedAt: 1, expiresAt: 9, answer: 'yes', answeredAt: 2 });
    expect(check({ ...good.approval, answer: null, answeredAt: null })).toMatchObject({ answer: null, answeredAt: null });
    for (const answer of ['no', 'expired'] as const) expect(check({ ...good.approval, answer })).toMatchObject({ answer, answeredAt: 2 });
    const { action: _action, ...noAction } = good.approval;
    expect(check(noAction)).toMatchObject({ actionJson: 'null' });
  });

  it('timers of each kind, done or not; memory, session, action', () => {
    expect(check(good.timer)).toEqual({
      type: 'timer',
      timer: { id: 'poll', due: 100, every: 60_000, cron: null, tz: null, missed: 'coalesce', payloadJson: '{"k":1}', key: null },
      done: false,
      lastSkipped: 2,
    });
    const cron = { ...good.timer, every: null, cron: '0 9 * * *', tz: 'Europe/Berlin', missed: 'each', done: true, lastSkipped: null };
    expect(check(cron)).toMatchObject({ timer: { cron: '0 9 * * *', tz: 'Europe/Berlin', every: null, missed: 'each' }, done: true, lastSkipped: null });
    const once = { ...good.timer, every: null, key: { source: 'reminder', sourceId: 'r1' }, done: true };
    expect(check(once)).toMatchObject({ timer: { every: null, cron: null, due: 100, key: { source: 'reminder', sourceId: 'r1' } }, done: true });
    expect(check(good.memory)).toEqual({ type: 'memory', key: 'name', valueJson: '{"first":"Alice"}', updatedAt: 7 });
    expect(check(good.session)).toEqual({ type: 'session', stateJson: '{"turns":[]}', updatedAt: 8 });
    expect(check(good.action)).toEqual({ type: 'action', at: 9, actor: 'ops', action: 'redrive', target: 'event 1', result: 'ok' });
  });
});

describe('validateRecord: what it refuses, naming the record and the field', () => {
  it('a record that is no object, or of no known type', () => {
    expect(refused(null, 4)).toBe('record 4: must be an object with a type, got null');
    expect(refused([good.lease], 2)).toBe('record 2: must be an object with a type, got a array');
    expect(refused('lease')).toBe('record 1: must be an object with a type, got "lease"');
    expect(refused({ type: 'memo' }, 7)).toBe(
      'record 7 (memo): type must be one of settings, lease, pacing, event, tombstone, message, approval, timer, memory, session, action, effect, usage; got "memo"',
    );
    expect(refused({ type: 7 })).toMatch(/^record 1: type must be one of .*; got 7$/);
    expect(refused({ type: 'x'.repeat(50) })).toMatch(new RegExp(`^record 1 \\(${'x'.repeat(40)}\\): type must be one of`));
  });

  it.each<[string, Kind, string, unknown, string]>([
    ['lease gen', 'lease', 'gen', -1, 'gen must be a whole number from 0 to 1125899906842624, got -1'],
    ['lease gen', 'lease', 'gen', 1.5, 'gen must be a whole number from 0 to 1125899906842624, got 1.5'],
    ['lease gen', 'lease', 'gen', '1', 'gen must be a whole number from 0 to 1125899906842624, got "1"'],
    ['lease gen', 'lease', 'gen', 2 ** 53 - 1, 'gen must be a whole number from 0 to 1125899906842624, got 9007199254740991'],
    ['pacing lastPacedAt', 'pacing', 'lastPacedAt', 1.5, 'lastPacedAt must be integer milliseconds, got 1.5'],
    ['pacing notBefore', 'pacing', 'notBefore', 8.64e15, 'notBefore must be within ±253402300799999 ms of the epoch (the year 9999), got 8640000000000000'],
    ['event attempts', 'event', 'attempts', 2 ** 40, 'attempts must be a whole number from 0 to 1000000000'],
    ['event claimGen', 'event', 'claimGen', 0, 'claimGen must be a whole number from 1 to 1125899906842624, got 0'],
    ['event receivedAt', 'event', 'receivedAt', -(2 ** 53 - 1), 'receivedAt must be within ±253402300799999 ms'],
    ['timer every', 'timer', 'every', 2 ** 53 - 1, 'every must be a whole number of milliseconds from 1 to 315576000000 (ten years)'],
    ['timer due', 'timer', 'due', 2 ** 53 - 1, 'due must be within ±253402300799999 ms'],
    ['approval expiresAt', 'approval', 'expiresAt', 2 ** 53 - 1, 'expiresAt must be within ±253402300799999 ms'],
    ['pacing notBefore', 'pacing', 'notBefore', 'soon', 'notBefore must be integer milliseconds, got "soon"'],
    ['pacing day', 'pacing', 'day', 20260115, 'day must be a string, got 20260115'],
    ['pacing day', 'pacing', 'day', 'a\u0000b', 'day'],
    ['pacing daySends', 'pacing', 'daySends', null, 'daySends must be a whole number from 0 to 1000000000, got null'],
    ['event source', 'event', 'source', '', 'source'],
    ['event sourceId', 'event', 'sourceId', 5, 'sourceId'],
    ['event status', 'event', 'status', 'finished', 'status must be one of pending, running, done, dead, got "finished"'],
    ['event attempts', 'event', 'attempts', -1, 'attempts must be a whole number from 0 to 1000000000, got -1'],
    ['event error', 'event', 'error', 5, 'error must be a string, got 5'],
    ['event lastError', 'event', 'lastError', false, 'lastError must be a string, got false'],
    ['event receivedAt', 'event', 'receivedAt', null, 'receivedAt must be integer milliseconds, got null'],
    ['event finishedAt', 'event', 'finishedAt', 'x', 'finishedAt must be integer milliseconds, got "x"'],
    ['event claimGen', 'event', 'claimGen', -2, 'claimGen must be a whole number from 1 to 1125899906842624, got -2'],
    ['event lastClaimAt', 'event', 'lastClaimAt', 0.5, 'lastClaimAt must be integer milliseconds, got 0.5'],
    ['event payload', 'event', 'payload', { big: 'x'.repeat(MAX) }, 'payload'],
    ['tombstone source', 'tombstone', 'source', null, 'source'],
    ['tombstone sourceId', 'tombstone', 'sourceId', '', 'sourceId'],
    ['message urgent', 'message', 'urgent', 'yes', 'urgent must be true or false, got "yes"'],
    ['message failures', 'message', 'failures', null, 'failures must be an array (empty for none), got null'],
    ['message body', 'message', 'body', null, 'body must be a string, got null'],
    ['message channel', 'message', 'channel', 7, 'channel must be a string, got 7'],
    ['message createdAt', 'message', 'createdAt', undefined, 'createdAt must be integer milliseconds, got undefined'],
    ['message sentAt', 'message', 'sentAt', 'now', 'sentAt must be integer milliseconds, got "now"'],
    ['approval answer', 'approval', 'answer', 'maybe', "answer must be 'yes', 'no', 'expired' or null, got \"maybe\""],
    ['approval answeredAt', 'approval', 'answeredAt', null, 'answer and answeredAt are both set or both null'],
    ['approval answeredAt', 'approval', 'answeredAt', 'then', 'answeredAt must be integer milliseconds, got "then"'],
    ['approval id', 'approval', 'id', '', 'approval id'],
    ['approval requestedAt', 'approval', 'requestedAt', null, 'requestedAt must be integer milliseconds, got null'],
    ['approval expiresAt', 'approval', 'expiresAt', 1.5, 'expiresAt must be integer milliseconds, got 1.5'],
    ['approval action', 'approval', 'action', { big: 'x'.repeat(MAX) }, 'action'],
    ['timer done', 'timer', 'done', 'no', 'done must be true or false, got "no"'],
    ['timer lastSkipped', 'timer', 'lastSkipped', -1, 'lastSkipped must be a whole number from 0 to 1000000000, got -1'],
    ['timer missed', 'timer', 'missed', 'sometimes', 'missed'],
    ['timer id', 'timer', 'id', '', 'timer id'],
    ['memory key', 'memory', 'key', '', 'key'],
    ['memory updatedAt', 'memory', 'updatedAt', null, 'updatedAt must be integer milliseconds, got null'],
    ['session state', 'session', 'state', null, 'state must be a JSON value (an inbox without a session exports no session record)'],
    ['session state', 'session', 'state', undefined, 'state must be a JSON value (an inbox without a session exports no session record)'],
    ['session updatedAt', 'session', 'updatedAt', 'x', 'updatedAt must be integer milliseconds, got "x"'],
    ['action at', 'action', 'at', null, 'at must be integer milliseconds, got null'],
    ['action actor', 'action', 'actor', '', 'actor'],
  ])('%s: %j', (_name, kind, field, value, message) => {
    const text = refused(withField(kind, field, value), 3);
    expect(text.startsWith(`record 3 (${kind}): `)).toBe(true);
    expect(text).toContain(message);
  });

  it('what each event status needs of its row', () => {
    for (const status of ['done', 'dead']) {
      expect(refused({ ...good.event, status, finishedAt: null })).toBe(`record 1 (event): a ${status} event needs its finishedAt`);
    }
    expect(refused({ ...good.event, claimGen: null, lastClaimAt: null, attempts: 0 })).toBe('record 1 (event): a running event needs the claimGen that claimed it');
    expect(refused({ ...good.event, finishedAt: 7 })).toBe('record 1 (event): a running event has no finishedAt (it has not finished), got 7');
    expect(refused({ ...good.event, status: 'pending', finishedAt: 7 })).toBe('record 1 (event): a pending event has no finishedAt (it has not finished), got 7');
    expect(refused({ ...good.event, lastClaimAt: null })).toBe('record 1 (event): claimGen and lastClaimAt are both set (by a claim) or both null');
    expect(refused({ ...good.event, attempts: 0 })).toContain('record 1 (event): attempts 0 with claimGen 2: each attempt is a claim');
    expect(refused({ ...good.event, status: 'pending', claimGen: null, lastClaimAt: null })).toContain('attempts 1 with claimGen null');
    expect(refused({ ...good.event, status: 'done', finishedAt: 7 })).toBe('record 1 (event): a done event has no error (a success clears it); its last failure is lastError');
    expect(refused({ ...good.event, status: 'dead', finishedAt: 7, error: null })).toBe('record 1 (event): a dead event needs the error it died of');
    expect(refused({ ...good.approval, answer: null })).toBe('record 1 (approval): answer and answeredAt are both set or both null');
  });

  it("a message's failures: each an object with a known kind, a channel, an error, when it failed and when it was redriven", () => {
    const failure = good.message.failures[0];
    const withFailure = (f: unknown) => ({ ...good.message, failures: [failure, f] });
    expect(refused(withFailure(null))).toBe("record 1 (message): failures[1].kind must be 'rejected', 'undeliverable' or 'uncertain', got undefined");
    expect(refused(withFailure({ ...failure, kind: 'lost' }))).toBe("record 1 (message): failures[1].kind must be 'rejected', 'undeliverable' or 'uncertain', got \"lost\"");
    expect(refused(withFailure({ ...failure, channel: null }))).toBe('record 1 (message): failures[1].channel must be a string, got null');
    expect(refused(withFailure({ ...failure, error: 3 }))).toBe('record 1 (message): failures[1].error must be a string, got 3');
    expect(refused(withFailure({ ...failure, failedAt: 'x' }))).toBe('record 1 (message): failures[1].failedAt must be integer milliseconds, got "x"');
    expect(refused(withFailure({ ...failure, redrivenAt: 1.5 }))).toBe('record 1 (message): failures[1].redrivenAt must be integer milliseconds, got 1.5');
  });

  it('an error that is no refusal passes through unchanged', () => {
    const hostile = { type: 'lease', get gen(): number { throw new TypeError('getter'); } };
    expect(() => check(hostile)).toThrow(TypeError);
  });
});

describe('validateRecords', () => {
  it('checks records one at a time as they arrive, from an iterable or an async one, numbering them from 1', async () => {
    const all: unknown[] = [];
    for await (const record of validateRecords([good.lease, good.tombstone], MAX)) all.push(record);
    expect(all).toEqual([check(good.lease), check(good.tombstone)]);
    async function* stream() {
      yield good.lease;
      yield { type: 'lease', gen: -1 };
    }
    const seen: unknown[] = [];
    await expect(async () => {
      for await (const record of validateRecords(stream(), MAX)) seen.push(record);
    }).rejects.toThrow('record 2 (lease): gen must be a whole number from 0 to 1125899906842624, got -1');
    expect(seen).toEqual([check(good.lease)]);
  });

  it('no claim above the lease: a claimGen past the lease gen is refused, the lease before or after its events or absent', async () => {
    const all = async (records: unknown[]) => {
      const out: unknown[] = [];
      for await (const record of validateRecords(records, MAX)) out.push(record);
      return out;
    };
    const running = (claimGen: number) => ({ ...good.event, claimGen });
    expect(await all([good.lease, running(3), running(2)])).toHaveLength(3);
    await expect(all([good.lease, running(2), running(4)])).rejects.toThrow(
      "record 3 (event): claimGen 4 is above the lease's generation 3: a claim is made under the lease's generation, never above it",
    );
    await expect(all([running(2), running(5), good.lease])).rejects.toThrow("record 3 (lease): gen 3 is below the claimGen 5 of record 2");
    await expect(all([good.tombstone, running(1)])).rejects.toThrow("record 2 (event): claimGen 1 is above the lease's generation 0 (the import has no lease record)");
    await expect(all([good.lease, good.lease])).rejects.toThrow('record 2 (lease): a second lease record');
  });

  it('refuses what is not iterable', async () => {
    for (const records of [null, 'records', 5, { length: 1 }]) {
      await expect(validateRecords(records as never, MAX).next()).rejects.toThrow(/^importInbox takes an iterable of exported records, got /);
    }
  });
});
