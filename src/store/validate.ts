/**
 * Input rules shared by every store. Each check throws a VigilError before
 * anything is written, so bad input never leaves a half-stored trace.
 */
import { Cron } from 'croner';
import { NO_MEMORY_CHANGES, validateMemoryChanges, validateSession, type CheckedMemory, type CheckedSession } from './agent-state.js';
import { VigilError, type VigilErrorCode } from '../errors.js';
import type {
  ApprovalAnswer,
  ApprovalRequest,
  EventQuery,
  EventStatus,
  MissedPolicy,
  NewEvent,
  OutboxMessage,
  RunOutcome,
  TimerSpec,
} from './contract.js';

/** R11: an id is a name, never a path (no `/`, no leading dot, bounded length). */
export const INBOX_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MAX_KEY_LENGTH = 256;
const EVENT_STATUSES: readonly EventStatus[] = ['pending', 'running', 'done', 'dead'];

export function validateInboxId(id: unknown): string {
  if (typeof id !== 'string' || !INBOX_ID_PATTERN.test(id)) {
    throw new VigilError(
      'invalid_inbox_id',
      `inbox id ${describe(id)} is invalid: use 1-128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit`,
    );
  }
  return id;
}

/** A validated event, its payload already serialised once. */
export interface CheckedEvent {
  source: string;
  sourceId: string;
  payloadJson: string;
}

/** R1: non-empty keys up to 256 characters, a JSON payload within the size limit. */
export function validateEvent(event: unknown, maxPayloadBytes: number): CheckedEvent {
  if (typeof event !== 'object' || event === null) {
    throw new VigilError('invalid_event', 'an event must be an object { source, sourceId, payload? }');
  }
  const { source, sourceId, payload } = event as NewEvent;
  checkKey('invalid_event', 'source', source);
  checkKey('invalid_event', 'sourceId', sourceId);
  const payloadJson = toJson('invalid_event', 'payload', payload === undefined ? null : payload, maxPayloadBytes);
  return { source, sourceId, payloadJson };
}

export function validateEvents(events: unknown, maxPayloadBytes: number): CheckedEvent[] {
  if (!Array.isArray(events)) {
    throw new VigilError('invalid_event', 'ingestMany takes an array of events');
  }
  return events.map((event, index) => {
    try {
      return validateEvent(event, maxPayloadBytes);
    } catch (error) {
      if (error instanceof VigilError) {
        throw new VigilError(error.code, `event ${index}: ${error.message}`);
      }
      throw error;
    }
  });
}

/**
 * Serialises a value that must survive a JSON round trip unchanged. Values
 * JSON.stringify would silently drop or alter (functions, NaN, Map, BigInt,
 * cycles) are refused: storing something other than what was given is a
 * quiet data loss.
 */
export function toJson(code: VigilErrorCode, what: string, value: unknown, maxBytes: number): string {
  checkJsonValue(code, what, value, new Set());
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) {
    throw new VigilError(code, `${what} is ${bytes} bytes as JSON; the limit is ${maxBytes}`);
  }
  return json;
}

function checkJsonValue(code: VigilErrorCode, what: string, value: unknown, seen: Set<object>): void {
  const problem = unrepresentable(value, seen);
  if (problem !== null) throw new VigilError(code, `${what}${problem.path} ${problem.why}`);
}

interface Unrepresentable {
  /** Where, relative to the value checked: `.a[2]`; built only on the way out of a failure. */
  path: string;
  why: string;
}

/**
 * The first part of `value` that JSON cannot carry unchanged, or null. Runs
 * on every ingest, so the common case allocates nothing: no path strings
 * and no entry arrays until something is wrong.
 */
function unrepresentable(value: unknown, seen: Set<object>): Unrepresentable | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : { path: '', why: `is ${value}, which JSON cannot represent` };
    case 'object':
      break;
    default:
      return { path: '', why: `is a ${typeof value}, which is not JSON-serialisable` };
  }
  if (value === null || value instanceof Date) return null;
  if (seen.has(value)) return { path: '', why: 'contains a cycle, which is not JSON-serialisable' };
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = unrepresentable(value[i], seen);
      if (problem !== null) return { path: `[${i}]${problem.path}`, why: problem.why };
    }
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      return { path: '', why: `is a ${value.constructor?.name ?? 'class instance'}; use plain objects and arrays` };
    }
    // A plain object's prototype has no enumerable keys: for...in sees only its own.
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      // An undefined property is left out by JSON, as everywhere in JS.
      if (item === undefined) continue;
      const problem = unrepresentable(item, seen);
      if (problem !== null) return { path: `.${key}${problem.path}`, why: problem.why };
    }
  }
  seen.delete(value);
  return null;
}

function checkKey(code: VigilErrorCode, name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_KEY_LENGTH) {
    throw new VigilError(code, `${name} must be a non-empty string of at most ${MAX_KEY_LENGTH} characters, got ${describe(value)}`);
  }
  checkWellFormed(code, name, value);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A string with a lone surrogate (half of a UTF-16 pair) has no UTF-8 form:
 * both databases would store U+FFFD in its place, so a key would come back
 * as another key and a message as other text. Refused instead of altered.
 * (Inside payloads JSON escapes them, so they round-trip there.)
 */
export function checkWellFormed(code: VigilErrorCode, name: string, value: string): void {
  if (LONE_SURROGATE.test(value)) {
    throw new VigilError(code, `${name} contains a lone UTF-16 surrogate (at index ${value.search(LONE_SURROGATE)}), which cannot be stored as text`);
  }
}

export function validateHolder(holder: unknown): string {
  checkKey('invalid_argument', 'holder', holder);
  return holder;
}

export function validateGen(gen: unknown): number {
  if (typeof gen !== 'number' || !Number.isSafeInteger(gen) || gen < 1) {
    throw new VigilError('invalid_argument', `gen must be a positive integer, got ${describe(gen)}`);
  }
  return gen;
}

export function validateEventId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
    throw new VigilError('invalid_argument', `event id must be a positive integer, got ${describe(id)}`);
  }
  return id;
}

export function validateEventIds(ids: unknown): number[] {
  if (!Array.isArray(ids)) throw new VigilError('invalid_argument', 'ids must be an array of event ids');
  return [...new Set(ids.map(validateEventId))];
}

export interface CheckedMessage {
  body: string;
  urgent: boolean;
}

export interface CheckedOutcome {
  messages: CheckedMessage[];
  error: string | null;
  /** With an error: dead at once (R6) rather than retried. */
  dead: boolean;
  session: CheckedSession;
  memory: CheckedMemory;
  approvals: CheckedApproval[];
}

/**
 * R3/R5: an error, or messages; with an error the messages are dropped (R5).
 * A session or memory changes come only with success: a failed run's state
 * is not what the next attempt should start from.
 */
export function validateOutcome(outcome: unknown, maxBytes: number): CheckedOutcome {
  if (outcome === undefined) return { messages: [], error: null, dead: false, session: undefined, memory: NO_MEMORY_CHANGES, approvals: [] };
  if (typeof outcome !== 'object' || outcome === null) {
    throw new VigilError('invalid_argument', 'outcome must be an object { messages?, error?, dead?, session?, memory? }');
  }
  const { messages = [], error, dead = false, session, memory, approvals = [] } = outcome as RunOutcome;
  if (error !== undefined && (typeof error !== 'string' || error.length === 0)) {
    throw new VigilError('invalid_argument', 'outcome.error must be a non-empty string');
  }
  if (typeof dead !== 'boolean') throw new VigilError('invalid_argument', 'outcome.dead must be a boolean');
  if (dead && error === undefined) throw new VigilError('invalid_argument', 'outcome.dead needs an outcome.error: the reason the events are dead');
  if (error !== undefined && (session !== undefined || memory !== undefined || (outcome as RunOutcome).approvals !== undefined)) {
    throw new VigilError('invalid_argument', 'outcome.session, outcome.memory and outcome.approvals are saved only with a successful outcome, not with an error');
  }
  if (!Array.isArray(approvals)) throw new VigilError('invalid_argument', 'outcome.approvals must be an array of { id, expiresInMs, action }');
  if (!Array.isArray(messages)) throw new VigilError('invalid_argument', 'outcome.messages must be an array');
  const checked = messages.map((message, i) => checkMessage(message, i, maxBytes));
  return {
    messages: error === undefined ? checked : [],
    error: error ?? null,
    dead,
    session: validateSession(session, maxBytes),
    memory: validateMemoryChanges(memory),
    approvals: approvals.map((request) => validateApprovalRequest(request, maxBytes)),
  };
}

function checkMessage(message: OutboxMessage, index: number, maxBytes: number): CheckedMessage {
  const { body, urgent = false } = typeof message === 'string' ? { body: message } : (message ?? ({} as { body?: unknown; urgent?: unknown }));
  if (typeof body !== 'string' || body.length === 0) {
    throw new VigilError('invalid_argument', `outcome.messages[${index}] needs a non-empty string body`);
  }
  if (Buffer.byteLength(body, 'utf8') > maxBytes) {
    throw new VigilError('invalid_argument', `outcome.messages[${index}] is larger than ${maxBytes} bytes`);
  }
  if (typeof urgent !== 'boolean') throw new VigilError('invalid_argument', `outcome.messages[${index}].urgent must be a boolean`);
  checkWellFormed('invalid_argument', `outcome.messages[${index}]`, body);
  return { body, urgent };
}

export function validateTime(name: string, value: unknown, code: VigilErrorCode = 'invalid_argument'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new VigilError(code, `${name} must be integer milliseconds, got ${describe(value)}`);
  }
  return value;
}

/** A timer as stored: every field checked, the cron pattern parsed once. */
export interface CheckedTimer {
  id: string;
  due: number | null;
  every: number | null;
  cron: string | null;
  tz: string | null;
  missed: MissedPolicy;
  payloadJson: string;
  key: { source: string; sourceId: string } | null;
}

/** R7: one-off, interval or cron; never both `every` and `cron`; fixed keys on one-offs only. */
export function validateTimer(timer: unknown, maxPayloadBytes: number): CheckedTimer {
  if (typeof timer !== 'object' || timer === null) throw new VigilError('invalid_timer', 'a timer must be an object');
  const spec = timer as TimerSpec;
  validateTimerId(spec.id);
  const fail = (message: string): never => {
    throw new VigilError('invalid_timer', `timer ${JSON.stringify(spec.id)}: ${message}`);
  };
  const every = spec.every ?? null;
  const cron = spec.cron ?? null;
  const tz = spec.tz ?? null;
  const missed = spec.missed ?? 'coalesce';
  if (every !== null && cron !== null) fail('use either every or cron, not both');
  if (every !== null && (typeof every !== 'number' || !Number.isSafeInteger(every) || every <= 0)) {
    fail(`every must be a positive integer of milliseconds, got ${describe(every)}`);
  }
  if (tz !== null && cron === null) fail('tz applies to cron timers only');
  if (cron !== null) checkCron(cron, tz, fail);
  if (missed !== 'coalesce' && missed !== 'each') fail(`missed must be 'coalesce' or 'each', got ${describe(missed)}`);
  let due: number | null = null;
  if (spec.due !== undefined) {
    due = validateTime(`timer ${JSON.stringify(spec.id)}: due`, spec.due, 'invalid_timer');
  } else if (cron === null) {
    fail('due is required unless the timer has a cron pattern');
  }
  let key: CheckedTimer['key'] = null;
  if (spec.key !== undefined) {
    if (every !== null || cron !== null) fail('a recurring timer cannot use a fixed event key: each occurrence needs its own');
    const k = spec.key as unknown;
    if (typeof k !== 'object' || k === null) fail('key must be { source, sourceId }');
    const { source, sourceId } = spec.key;
    checkKey('invalid_timer', 'key.source', source);
    checkKey('invalid_timer', 'key.sourceId', sourceId);
    key = { source, sourceId };
  }
  const payload = spec.payload ?? {};
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    fail('payload must be a plain object (the scheduler adds scheduledFor, lateBy and skipped to it)');
  }
  const payloadJson = toJson('invalid_timer', `timer ${JSON.stringify(spec.id)}: payload`, payload, maxPayloadBytes);
  return { id: spec.id, due, every, cron, tz, missed, payloadJson, key };
}

function checkCron(cron: unknown, tz: unknown, fail: (message: string) => never): void {
  if (typeof cron !== 'string' || cron.trim() === '') fail('cron must be a non-empty pattern string');
  if (tz !== null && (typeof tz !== 'string' || !isTimeZone(tz))) fail(`tz ${describe(tz)} is not an IANA time zone`);
  try {
    new Cron(cron as string, { timezone: (tz as string | null) ?? undefined, paused: true });
  } catch (error) {
    fail(`cron pattern ${JSON.stringify(cron)} is invalid: ${(error as Error).message}`);
  }
}

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export interface CheckedApproval {
  id: string;
  expiresInMs: number;
  actionJson: string;
}

export function validateApprovalRequest(request: unknown, maxBytes: number): CheckedApproval {
  if (typeof request !== 'object' || request === null) {
    throw new VigilError('invalid_argument', 'an approval request must be an object { id, expiresInMs, action }');
  }
  const { id, expiresInMs, action } = request as ApprovalRequest;
  validateApprovalId(id);
  if (typeof expiresInMs !== 'number' || !Number.isSafeInteger(expiresInMs) || expiresInMs <= 0) {
    throw new VigilError('invalid_argument', `expiresInMs must be a positive integer of milliseconds, got ${describe(expiresInMs)}`);
  }
  const actionJson = toJson('invalid_argument', 'action', action === undefined ? null : action, maxBytes);
  return { id, expiresInMs, actionJson };
}

export function validateApprovalId(id: unknown): string {
  checkKey('invalid_argument', 'approval id', id);
  return id;
}

export function validateAnswer(answer: unknown): ApprovalAnswer {
  if (answer !== 'yes' && answer !== 'no') {
    throw new VigilError('invalid_argument', `an approval answer is 'yes' or 'no', got ${describe(answer)}`);
  }
  return answer;
}

/** An event listing's query, checked: every field present. */
export interface CheckedEventQuery {
  status: EventStatus | null;
  source: string | null;
  limit: number;
  newestFirst: boolean;
  /** Only ids past this one in the listing's order; null for the first page. */
  afterId: number | null;
}

export function validateEventQuery(query: unknown): CheckedEventQuery {
  if (query !== undefined && query !== null && typeof query !== 'object') {
    throw new VigilError('invalid_argument', `an event query must be an object { status?, source?, limit?, newestFirst?, afterId? }, got ${describe(query)}`);
  }
  const { status, source, limit = 100, newestFirst = false, afterId } = (query ?? {}) as EventQuery;
  if (status !== undefined && !EVENT_STATUSES.includes(status)) {
    throw new VigilError('invalid_argument', `status must be one of ${EVENT_STATUSES.join(', ')}, got ${describe(status)}`);
  }
  if (source !== undefined) checkKey('invalid_argument', 'source', source);
  if (typeof newestFirst !== 'boolean') throw new VigilError('invalid_argument', `newestFirst must be a boolean, got ${describe(newestFirst)}`);
  if (afterId !== undefined && (typeof afterId !== 'number' || !Number.isSafeInteger(afterId))) {
    throw new VigilError('invalid_argument', `afterId must be an event id (an integer), got ${describe(afterId)}`);
  }
  return { status: status ?? null, source: source ?? null, limit: validateLimit(limit), newestFirst, afterId: afterId ?? null };
}

export function validateLimit(limit: unknown, max = 10_000): number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new VigilError('invalid_argument', `limit must be an integer from 1 to ${max}, got ${describe(limit)}`);
  }
  return limit;
}

/** Short enough that the event key `<id>@<scheduledFor>` stays within 256 characters. */
export const MAX_TIMER_ID_LENGTH = 200;

export function validateTimerId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_TIMER_ID_LENGTH) {
    throw new VigilError('invalid_timer', `timer id must be a non-empty string of at most ${MAX_TIMER_ID_LENGTH} characters, got ${describe(id)}`);
  }
  checkWellFormed('invalid_timer', 'timer id', id);
  return id;
}

/** A value as an error message shows it: short strings quoted, anything else by its kind. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return `a ${Array.isArray(value) ? 'array' : typeof value}`;
}
