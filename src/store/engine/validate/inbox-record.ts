/**
 * importInbox's input (contract.ts, InboxRecord): each record checked by
 * the rules its row was written under, so an import can never store what
 * the API would have refused, and serialised once, as the stores keep it.
 * A bad record names itself (its position and type) and the import writes
 * nothing.
 */
import { VigilError } from '../../../errors.js';
import type { EventStatus, InboxRecord } from '../../contract.js';
import { OUTBOX_FAILURE_KINDS as FAILURE_KINDS, type OutboxFailureKind } from '../../contract/outbox.js';
import { validateMemoryKey, validateMemoryValue } from './agent-state.js';
import { validateApprovalId } from './approval.js';
import { toJson } from './json.js';
import { validateOperatorAction, type CheckedAction } from './operator.js';
import { validateSettings, type CheckedSettings } from './settings.js';
import { checkKey, checkStorable, describe } from './text.js';
import { validateTimer, type CheckedTimer } from './timer.js';

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
  | ({ type: 'action'; at: number } & CheckedAction);

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
  for await (const record of records) {
    n++;
    yield validateRecord(record, n, maxPayloadBytes);
  }
}

export function validateRecord(record: unknown, n: number, maxPayloadBytes: number): CheckedRecord {
  const type = (record as { type?: unknown } | null)?.type;
  try {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw bad(`must be an object with a type, got ${describe(record)}`);
    return checkRecord(record as Fields, maxPayloadBytes);
  } catch (error) {
    if (!(error instanceof VigilError)) throw error;
    const what = typeof type === 'string' ? ` (${type.slice(0, 40)})` : '';
    throw new VigilError('invalid_argument', `record ${n}${what}: ${error.message}`);
  }
}

function checkRecord(r: Fields, maxPayloadBytes: number): CheckedRecord {
  switch (r.type) {
    case 'settings':
      return { type: 'settings', settings: validateSettings(r.settings) };
    case 'lease':
      return { type: 'lease', gen: count('gen', r.gen) };
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
      return {
        type: 'approval',
        id: validateApprovalId(r.id),
        actionJson: toJson('invalid_argument', 'action', r.action === undefined ? null : r.action, maxPayloadBytes),
        requestedAt: time('requestedAt', r.requestedAt),
        expiresAt: time('expiresAt', r.expiresAt),
        answer,
        answeredAt,
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
    default:
      throw bad(`type must be one of settings, lease, pacing, event, tombstone, message, approval, timer, memory, session, action; got ${describe(r.type)}`);
  }
}

function event(r: Fields, maxPayloadBytes: number): CheckedRecord {
  checkKey('invalid_argument', 'source', r.source);
  checkKey('invalid_argument', 'sourceId', r.sourceId);
  const status = r.status as EventStatus;
  if (!STATUSES.includes(status)) throw bad(`status must be one of ${STATUSES.join(', ')}, got ${describe(r.status)}`);
  const finishedAt = timeOrNull('finishedAt', r.finishedAt);
  const claimGen = countOrNull('claimGen', r.claimGen);
  // What the rules read of a row in each status: prune reads a finished one's time, a claim a running one's generation.
  if ((status === 'done' || status === 'dead') && finishedAt === null) throw bad(`a ${status} event needs its finishedAt`);
  if (status === 'running' && claimGen === null) throw bad('a running event needs the claimGen that claimed it');
  return {
    type: 'event',
    source: r.source,
    sourceId: r.sourceId,
    payloadJson: toJson('invalid_argument', 'payload', r.payload === undefined ? null : r.payload, maxPayloadBytes),
    status,
    attempts: count('attempts', r.attempts),
    error: textOrNull('error', r.error),
    lastError: textOrNull('lastError', r.lastError),
    receivedAt: time('receivedAt', r.receivedAt),
    finishedAt,
    claimGen,
    lastClaimAt: timeOrNull('lastClaimAt', r.lastClaimAt),
  };
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
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw bad(`${name} must be integer milliseconds, got ${describe(value)}`);
  return value;
}

function timeOrNull(name: string, value: unknown): number | null {
  return value === null ? null : time(name, value);
}

function count(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw bad(`${name} must be a whole number >= 0, got ${describe(value)}`);
  return value;
}

function countOrNull(name: string, value: unknown): number | null {
  return value === null ? null : count(name, value);
}
