/**
 * importInbox's input (contract.ts, InboxRecord): each record checked by
 * the rules its row was written under, so an import can never store what
 * the API would have refused, and serialised once, as the stores keep it.
 * A bad record names itself (its position and type) and the import writes
 * nothing. Beyond each field's type and bound (bounds.ts), a record must
 * be a state the API can produce: an event's status with exactly the
 * fields that status has, and no claim by a generation the lease never
 * reached. An import of `running` under a claim above the lease stayed
 * running for good (each takeover saw a claim newer than its own), and a
 * lease of 2^53-1 let the agent run, then refused its finish.
 */
import { VigilError } from '../../../errors.js';
import type { EffectState, EventStatus, InboxRecord, Usage } from '../../contract.js';
import { validateIntent } from './effect.js';
import { OUTBOX_FAILURE_KINDS as FAILURE_KINDS, type OutboxFailureKind } from '../../contract/outbox.js';
import { validateMemoryKey, validateMemoryValue } from './agent-state.js';
import { validateApprovalId } from './approval.js';
import { checkBounded, checkInstant, MAX_COUNT, MAX_GENERATION } from './bounds.js';
import { toJson } from './json.js';
import { validateOperatorAction, type CheckedAction } from './operator.js';
import { validateSettings, type CheckedSettings } from './settings.js';
import { checkKey, checkStorable, describe } from './text.js';
import { validateTimer, type CheckedTimer } from './timer.js';
import { checkUsage } from './usage.js';

/** An exported record of `type`, with `json` (a field holding a value) replaced by its serialised text. */
type Serialised<T extends InboxRecord['type'], K extends string, J extends string> = Omit<Extract<InboxRecord, { type: T }>, K> & { [F in J]: string };

/** InboxRecord as the stores keep it: values serialised once, settings, timers and actions as their validators give them. */
export type CheckedRecord =
  | { type: 'settings'; settings: CheckedSettings }
  | Extract<InboxRecord, { type: 'lease' | 'pacing' | 'tombstone' | 'message' }>
  | Serialised<'event', 'payload', 'payloadJson'>
  | Serialised<'approval', 'action', 'actionJson'>
  | { type: 'timer'; timer: CheckedTimer & { due: number }; done: boolean; lastSkipped: number | null }
  | Serialised<'memory', 'value', 'valueJson'>
  | Serialised<'session', 'state', 'stateJson'>
  | ({ type: 'action'; at: number } & CheckedAction)
  | (Omit<Extract<InboxRecord, { type: 'effect' }>, 'input'> & { inputJson: string })
  | { type: 'usage'; at: number; usage: Usage };

const STATUSES: readonly EventStatus[] = ['pending', 'running', 'done', 'dead'];
type Fields = Record<string, unknown>;

/** Checks records one at a time as they arrive (an export may be larger than memory). */
export async function* validateRecords(
  records: Iterable<unknown> | AsyncIterable<unknown>,
  maxPayloadBytes: number,
): AsyncGenerator<CheckedRecord> {
  if (records === null || typeof records !== 'object' || !(Symbol.iterator in records || Symbol.asyncIterator in records)) {
    throw new VigilError('invalid_argument', `importInbox takes an iterable of exported records, got ${describe(records)}`);
  }
  let n = 0;
  const claims = new ClaimsUnderLease();
  for await (const record of records) {
    n++;
    const checked = validateRecord(record, n, maxPayloadBytes);
    claims.see(checked, n);
    yield checked;
  }
  claims.end();
}

/**
 * R3 across records: every event's claimGen is a generation the lease
 * reached, so at most the lease record's gen (0 without one). Checked in
 * either order, so a hand-made file with the lease after its events is
 * judged as an export is; a breach names the record that makes it one.
 */
class ClaimsUnderLease {
  private leaseGen: number | null = null;
  private highest: { gen: number; n: number } | null = null;

  see(record: CheckedRecord, n: number): void {
    if (record.type === 'lease') {
      if (this.leaseGen !== null) throw atRecord(n, 'lease', 'a second lease record (an inbox has one lease)');
      if (this.highest !== null && this.highest.gen > record.gen) {
        throw atRecord(n, 'lease', `gen ${record.gen} is below the claimGen ${this.highest.gen} of record ${this.highest.n}: a claim is made under the lease's generation, never above it`);
      }
      this.leaseGen = record.gen;
    } else if (record.type === 'event' && record.claimGen !== null) {
      if (this.leaseGen !== null && record.claimGen > this.leaseGen) {
        throw atRecord(n, 'event', `claimGen ${record.claimGen} is above the lease's generation ${this.leaseGen}: a claim is made under the lease's generation, never above it`);
      }
      if (this.highest === null || record.claimGen > this.highest.gen) this.highest = { gen: record.claimGen, n };
    }
  }

  end(): void {
    if (this.leaseGen === null && this.highest !== null) {
      throw atRecord(this.highest.n, 'event', `claimGen ${this.highest.gen} is above the lease's generation 0 (the import has no lease record): a claim is made under the lease's generation, never above it`);
    }
  }
}

function atRecord(n: number, type: string, problem: string): VigilError {
  return new VigilError('invalid_argument', `record ${n} (${type}): ${problem}`);
}

export function validateRecord(record: unknown, n: number, maxPayloadBytes: number): CheckedRecord {
  const type = (record as { type?: unknown } | null)?.type;
  try {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw bad(`must be an object with a type, got ${describe(record)}`);
    return checkRecord(record as Fields, maxPayloadBytes);
  } catch (error) {
    if (!(error instanceof VigilError)) throw error;
    const what = typeof type === 'string' ? ` (${type.slice(0, 40)})` : '';
    throw new VigilError('invalid_argument', `record ${n}${what}: ${error.message}`, { cause: error });
  }
}

function checkRecord(r: Fields, maxPayloadBytes: number): CheckedRecord {
  switch (r.type) {
    case 'settings':
      return { type: 'settings', settings: validateSettings(r.settings) };
    case 'lease':
      return { type: 'lease', gen: checkBounded('invalid_argument', 'gen', r.gen, 0, MAX_GENERATION) };
    case 'pacing':
      return {
        type: 'pacing',
        lastPacedAt: timeOrNull('lastPacedAt', r.lastPacedAt),
        notBefore: timeOrNull('notBefore', r.notBefore),
        day: r.day === null ? null : text('day', r.day),
        daySends: count('daySends', r.daySends),
      };
    case 'event':
      return event(r, maxPayloadBytes);
    case 'tombstone':
      checkKey('invalid_argument', 'source', r.source);
      checkKey('invalid_argument', 'sourceId', r.sourceId);
      return { type: 'tombstone', source: r.source, sourceId: r.sourceId };
    case 'message':
      return message(r);
    case 'approval': {
      const answer = r.answer;
      if (answer !== null && answer !== 'yes' && answer !== 'no' && answer !== 'expired') {
        throw bad(`answer must be 'yes', 'no', 'expired' or null, got ${describe(answer)}`);
      }
      const answeredAt = timeOrNull('answeredAt', r.answeredAt);
      if ((answer === null) !== (answeredAt === null)) throw bad('answer and answeredAt are both set or both null');
      // An export from before reminders has neither field; remindedAt only with a remindAt.
      const remindAt = r.remindAt === undefined || r.remindAt === null ? undefined : time('remindAt', r.remindAt);
      const remindedAt = r.remindedAt === undefined ? null : timeOrNull('remindedAt', r.remindedAt);
      if (remindAt === undefined && remindedAt !== null) throw bad('remindedAt is set without a remindAt');
      return {
        type: 'approval',
        id: validateApprovalId(r.id),
        actionJson: toJson('invalid_argument', 'action', r.action === undefined ? null : r.action, maxPayloadBytes),
        requestedAt: time('requestedAt', r.requestedAt),
        expiresAt: time('expiresAt', r.expiresAt),
        answer,
        answeredAt,
        ...(remindAt === undefined ? {} : { remindAt, remindedAt }),
      };
    }
    case 'timer': {
      const timer = validateTimer({ id: r.id, due: r.due, every: r.every ?? undefined, cron: r.cron ?? undefined, tz: r.tz ?? undefined, missed: r.missed, payload: r.payload, key: r.key ?? undefined }, maxPayloadBytes);
      if (typeof r.done !== 'boolean') throw bad(`done must be true or false, got ${describe(r.done)}`);
      return { type: 'timer', timer: { ...timer, due: time('due', r.due) }, done: r.done, lastSkipped: countOrNull('lastSkipped', r.lastSkipped) };
    }
    case 'memory': {
      const key = validateMemoryKey(r.key);
      return { type: 'memory', key, valueJson: validateMemoryValue(key, r.value), updatedAt: time('updatedAt', r.updatedAt) };
    }
    case 'session':
      if (r.state === null || r.state === undefined) throw bad('state must be a JSON value (an inbox without a session exports no session record)');
      return { type: 'session', stateJson: toJson('invalid_argument', 'state', r.state, maxPayloadBytes), updatedAt: time('updatedAt', r.updatedAt) };
    case 'action':
      return { type: 'action', at: time('at', r.at), ...validateOperatorAction(r) };
    case 'effect':
      return effectRecord(r, maxPayloadBytes);
    case 'usage': {
      const { type: _type, at, ...usage } = r;
      return { type: 'usage', at: time('at', at), usage: checkUsage(usage, 'usage') };
    }
    default:
      throw bad(`type must be one of settings, lease, pacing, event, tombstone, message, approval, timer, memory, session, action, effect, usage; got ${describe(r.type)}`);
  }
}

function event(r: Fields, maxPayloadBytes: number): CheckedRecord {
  checkKey('invalid_argument', 'source', r.source);
  checkKey('invalid_argument', 'sourceId', r.sourceId);
  const status = r.status as EventStatus;
  if (!STATUSES.includes(status)) throw bad(`status must be one of ${STATUSES.join(', ')}, got ${describe(r.status)}`);
  const finishedAt = timeOrNull('finishedAt', r.finishedAt);
  const claimGen = r.claimGen === null ? null : checkBounded('invalid_argument', 'claimGen', r.claimGen, 1, MAX_GENERATION);
  const lastClaimAt = timeOrNull('lastClaimAt', r.lastClaimAt);
  const attempts = count('attempts', r.attempts);
  const error = textOrNull('error', r.error);
  checkEventState(status, { finishedAt, claimGen, lastClaimAt, attempts, error });
  return {
    type: 'event',
    source: r.source,
    sourceId: r.sourceId,
    payloadJson: toJson('invalid_argument', 'payload', r.payload === undefined ? null : r.payload, maxPayloadBytes),
    status,
    attempts,
    error,
    lastError: textOrNull('lastError', r.lastError),
    receivedAt: time('receivedAt', r.receivedAt),
    finishedAt,
    claimGen,
    lastClaimAt,
  };
}

/**
 * The fields each status has, as the API writes them (R4-R6): a claim sets
 * claimGen, lastClaimAt and one more attempt together, a redrive clears all
 * three; a finish sets finishedAt; done clears the error, dead records one.
 */
function checkEventState(
  status: EventStatus,
  f: { finishedAt: number | null; claimGen: number | null; lastClaimAt: number | null; attempts: number; error: string | null },
): void {
  if ((status === 'done' || status === 'dead') && f.finishedAt === null) throw bad(`a ${status} event needs its finishedAt`);
  if ((status === 'pending' || status === 'running') && f.finishedAt !== null) throw bad(`a ${status} event has no finishedAt (it has not finished), got ${f.finishedAt}`);
  if (status === 'running' && f.claimGen === null) throw bad('a running event needs the claimGen that claimed it');
  if ((f.claimGen === null) !== (f.lastClaimAt === null)) throw bad('claimGen and lastClaimAt are both set (by a claim) or both null');
  if ((f.claimGen === null) !== (f.attempts === 0)) throw bad(`attempts ${f.attempts} with claimGen ${String(f.claimGen)}: each attempt is a claim, so an event claimed has attempts >= 1 and one never claimed 0`);
  if (status === 'done' && f.error !== null) throw bad('a done event has no error (a success clears it); its last failure is lastError');
  if (status === 'dead' && f.error === null) throw bad('a dead event needs the error it died of');
}

function message(r: Fields): CheckedRecord {
  if (typeof r.urgent !== 'boolean') throw bad(`urgent must be true or false, got ${describe(r.urgent)}`);
  if (!Array.isArray(r.failures)) throw bad(`failures must be an array (empty for none), got ${describe(r.failures)}`);
  const failures = r.failures.map((f: unknown, i) => {
    const failure = (typeof f === 'object' && f !== null ? f : {}) as Fields;
    const kind = failure.kind as OutboxFailureKind;
    if (!FAILURE_KINDS.includes(kind)) throw bad(`failures[${i}].kind must be 'rejected', 'undeliverable' or 'uncertain', got ${describe(kind)}`);
    return {
      channel: text(`failures[${i}].channel`, failure.channel),
      kind,
      error: text(`failures[${i}].error`, failure.error),
      failedAt: time(`failures[${i}].failedAt`, failure.failedAt),
      redrivenAt: timeOrNull(`failures[${i}].redrivenAt`, failure.redrivenAt),
    };
  });
  return {
    type: 'message',
    body: text('body', r.body),
    urgent: r.urgent,
    channel: r.channel === null ? null : text('channel', r.channel),
    createdAt: time('createdAt', r.createdAt),
    sentAt: timeOrNull('sentAt', r.sentAt),
    failures,
  };
}

function bad(message: string): VigilError {
  return new VigilError('invalid_argument', message);
}

function text(name: string, value: unknown): string {
  if (typeof value !== 'string') throw bad(`${name} must be a string, got ${describe(value)}`);
  checkStorable('invalid_argument', name, value);
  return value;
}

function textOrNull(name: string, value: unknown): string | null {
  return value === null ? null : text(name, value);
}

function time(name: string, value: unknown): number {
  return checkInstant('invalid_argument', name, value);
}

function timeOrNull(name: string, value: unknown): number | null {
  return value === null ? null : time(name, value);
}

function count(name: string, value: unknown): number {
  return checkBounded('invalid_argument', name, value, 0, MAX_COUNT);
}

function countOrNull(name: string, value: unknown): number | null {
  return value === null ? null : count(name, value);
}

const EFFECT_STATES: readonly EffectState[] = ['intended', 'started', 'confirmed', 'failed'];

/** A ledger row: its input checked as a call's is, and hashed again here rather than trusted. */
function effectRecord(r: Fields, maxPayloadBytes: number): CheckedRecord {
  const { key, tool, inputJson, inputHash } = validateIntent({ key: r.key, tool: r.tool, input: r.input }, maxPayloadBytes);
  const state = r.state as EffectState;
  if (!EFFECT_STATES.includes(state)) throw bad(`state must be one of ${EFFECT_STATES.join(', ')}, got ${describe(r.state)}`);
  const gen = r.gen === null ? null : checkBounded('invalid_argument', 'gen', r.gen, 1, MAX_GENERATION);
  const startedAt = timeOrNull('startedAt', r.startedAt);
  const settledAt = timeOrNull('settledAt', r.settledAt);
  if ((state === 'intended') !== (startedAt === null)) throw bad('startedAt is null exactly when the state is intended');
  if ((state === 'confirmed' || state === 'failed') !== (settledAt !== null)) throw bad('settledAt is set exactly when the state is confirmed or failed');
  return { type: 'effect', key, tool, inputJson, inputHash, state, gen, intendedAt: time('intendedAt', r.intendedAt), startedAt, settledAt };
}
