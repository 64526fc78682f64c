/**
 * The rows both stores read back from their SQL (the same snake_case
 * columns on SQLite and PostgreSQL) and how each becomes what the contract
 * returns. One mapping, so the two stores cannot drift apart in what they
 * hand a caller.
 */
import type { DeadEvent } from '../events.js';
import type { DueTimer } from './engine/port.js';
import { isReadableInstant } from './engine/validate/bounds.js';
import type {
  ActivityBucket,
  ApprovalRow,
  ClaimedEvent,
  EventRow,
  EventStatus,
  StoredStats,
  InboxSummary,
  LeaseInfo,
  OperatorAction,
  OutboxFailure,
  OutboxFailureKind,
  OutboxRow,
  TimerRow,
  TimerSchedule,
} from './contract.js';

export const EVENT_COLUMNS = 'id, source, source_id, payload, status, attempts, error, last_error, received_at';

export interface ClaimedRecord {
  id: number;
  source: string;
  source_id: string;
  payload: string;
  attempts: number;
}

/** An event a claim sent dead (R4), as RETURNING gives it. */
export interface DeadRecord {
  id: number;
  source: string;
  source_id: string;
  attempts: number;
  last_error: string | null;
}

export function toDeadEvents(rows: DeadRecord[]): DeadEvent[] {
  return rows
    .map((row) => ({ id: row.id, source: row.source, sourceId: row.source_id, attempts: row.attempts, lastError: row.last_error }))
    .sort((a, b) => a.id - b.id);
}

export interface EventRecord extends ClaimedRecord {
  status: EventStatus;
  error: string | null;
  last_error: string | null;
  received_at: number;
}

export interface TimerRecord extends TimerSchedule {
  payload: string;
  key_source: string | null;
  key_source_id: string | null;
}

/** A due timer's row as the scheduler's plan takes it (engine/scheduler.ts). */
export function toDueTimer(row: TimerRecord): DueTimer {
  // Spelled out, not spread from scheduleOf: a scheduler pass maps a
  // thousand of these, and the spread cost that pass 2 ms of its 11 (npm run bench).
  return {
    id: row.id,
    due: row.due,
    every: row.every,
    cron: row.cron,
    tz: row.tz,
    missed: row.missed,
    payloadJson: row.payload,
    key: keyOf(row),
  };
}

export interface ListedTimerRecord extends TimerRecord {
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  done: number | boolean;
  last_skipped: number | null;
}

/** R4: claimed events sorted by id (RETURNING order is unspecified on both stores). */
export function toClaimedEvents(rows: ClaimedRecord[]): ClaimedEvent[] {
  return rows
    .map((row) => ({
      id: row.id,
      source: row.source,
      sourceId: row.source_id,
      payload: JSON.parse(row.payload) as unknown,
      attempts: row.attempts,
    }))
    .sort((a, b) => a.id - b.id);
}

export function toEventRow(row: EventRecord): EventRow {
  return {
    id: row.id,
    source: row.source,
    sourceId: row.source_id,
    payload: JSON.parse(row.payload) as unknown,
    attempts: row.attempts,
    status: row.status,
    error: row.error,
    lastError: row.last_error,
    receivedAt: row.received_at,
  };
}

export function toTimerRow(row: ListedTimerRecord): TimerRow {
  return {
    ...scheduleOf(row),
    done: row.done === true || row.done === 1,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    key: keyOf(row),
    lastSkipped: row.last_skipped,
  };
}

/** The schedule of a timer's row, without the row's other columns. */
function scheduleOf(row: TimerRecord): TimerSchedule {
  return { id: row.id, due: row.due, every: row.every, cron: row.cron, tz: row.tz, missed: row.missed };
}

function keyOf(row: TimerRecord): { source: string; sourceId: string } | null {
  return row.key_source !== null && row.key_source_id !== null ? { source: row.key_source, sourceId: row.key_source_id } : null;
}

/** Stats of an inbox that was never written. */
export function emptyStats(): StoredStats {
  return {
    events: { pending: 0, running: 0, done: 0, dead: 0 },
    outbox: { held: 0, sent: 0, undeliverable: 0, rejected: 0 },
    timers: 0,
    approvalsPending: 0,
    lease: null,
    usage: { pendingEvents: 0, pendingBytes: 0, eventsThisMinute: 0 },
  };
}

/** Counts and times of one inbox on the overview, as both stores select them. */
export interface SummaryRecord {
  pending: number;
  running: number;
  done: number;
  dead: number;
  next_timer_at: number | null;
  outbox_held: number;
  approvals_pending: number;
  /** The lease's generation even when no one holds it (PostgreSQL's row has it). */
  gen?: number | null;
}

/**
 * One inbox's row of the overview, or an unreadable one when a value in it
 * is one no rule could have written (engine/validate/bounds.ts): a time
 * outside the date range, an integer past 2^53. Such a row (an older
 * version's, or one written by hand) made the whole overview a 500; now it
 * is that inbox's red row and the rest of the page reads.
 */
export function toSummary(id: string, row: SummaryRecord, lease: LeaseInfo | null, readySince: number | null): InboxSummary {
  const bad = outOfRange(row, lease, readySince);
  if (bad !== null) return unreadableSummary(id, `a stored value is out of range (${bad}): written by an older version or by hand; export, fix and import the inbox, or delete it`);
  return {
    id,
    events: { pending: row.pending, running: row.running, done: row.done, dead: row.dead },
    lease,
    nextTimerAt: row.next_timer_at,
    outboxHeld: row.outbox_held,
    approvalsPending: row.approvals_pending,
    readySince,
    unreadable: null,
  };
}

function outOfRange(row: SummaryRecord, lease: LeaseInfo | null, readySince: number | null): string | null {
  const integers: [string, unknown][] = [
    ['pending', row.pending],
    ['running', row.running],
    ['done', row.done],
    ['dead', row.dead],
    ['outboxHeld', row.outbox_held],
    ['approvalsPending', row.approvals_pending],
  ];
  for (const [name, value] of integers) if (!Number.isSafeInteger(value)) return `${name} ${String(value)}`;
  // At 2^53-1 the next takeover's gen + 1 leaves the safe integers: the inbox could never finish a run again.
  const gen = lease?.gen ?? row.gen ?? null;
  if (gen !== null && !(Number.isSafeInteger(gen) && gen < Number.MAX_SAFE_INTEGER)) return `lease.gen ${String(gen)}`;
  const times: [string, unknown][] = [
    ['nextTimerAt', row.next_timer_at],
    ['readySince', readySince],
  ];
  for (const [name, value] of times) if (value !== null && !isReadableInstant(value)) return `${name} ${String(value)}`;
  // A lease in the past is shown as free, never as a date: SQLite's import writes one at -(2^53-1) on purpose.
  const until = lease?.until ?? null;
  if (until !== null && !(Number.isSafeInteger(until) && (until < 0 || isReadableInstant(until)))) return `lease.until ${String(until)}`;
  return null;
}

/** A summary of an inbox listed but never written (or whose file is gone). */
export function emptySummary(id: string): InboxSummary {
  return { id, events: { pending: 0, running: 0, done: 0, dead: 0 }, lease: null, nextTimerAt: null, outboxHeld: 0, approvalsPending: 0, readySince: null, unreadable: null };
}

/** A summary of an inbox that could not be read: zero counts and the reason. */
export function unreadableSummary(id: string, reason: string): InboxSummary {
  return { ...emptySummary(id), unreadable: reason };
}

export interface ApprovalRecord {
  id: string;
  action: string;
  requested_at: number;
  expires_at: number;
  answer: ApprovalRow['answer'];
  answered_at: number | null;
  /** Read by the export (not by the dashboard's list): absent or null, the approval has no reminder. */
  remind_at?: number | null;
  reminded_at?: number | null;
}

/** An approval row's columns, its reminder's included (migration 012 / 019). */
export const APPROVAL_COLUMNS = 'id, action, requested_at, expires_at, answer, answered_at, remind_at, reminded_at';

export function toApprovalRow(row: ApprovalRecord): ApprovalRow {
  return {
    id: row.id,
    action: JSON.parse(row.action) as unknown,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    answer: row.answer,
    answeredAt: row.answered_at,
    ...(row.remind_at === undefined || row.remind_at === null ? {} : { remindAt: Number(row.remind_at), remindedAt: row.reminded_at === null || row.reminded_at === undefined ? null : Number(row.reminded_at) }),
  };
}

export interface OutboxRecord {
  id: number;
  body: string;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  urgent: number | boolean;
  created_at: number;
  sent_at: number | null;
}

export function toOutboxRow(row: OutboxRecord): OutboxRow {
  return { id: row.id, body: row.body, urgent: row.urgent === true || row.urgent === 1, createdAt: row.created_at, sentAt: row.sent_at };
}

/** Counts of one bucket, by number (0 = the bucket starting at `since`); several rows of a bucket add up. */
export interface ActivityRecord {
  bucket: number;
  received: number;
  finished: number;
  runs: number;
}

/** Every bucket from `since`, empty ones included, oldest first. */
export function toActivity(rows: ActivityRecord[], query: { since: number; bucketMs: number }, count: number): ActivityBucket[] {
  const buckets: ActivityBucket[] = Array.from({ length: count }, (_, i) => ({
    start: query.since + i * query.bucketMs,
    received: 0,
    finished: 0,
    runs: 0,
  }));
  for (const row of rows) {
    const bucket = buckets[Number(row.bucket)];
    if (bucket === undefined) continue;
    bucket.received += Number(row.received);
    bucket.finished += Number(row.finished);
    bucket.runs += Number(row.runs);
  }
  return buckets;
}

export interface FailureRecord {
  message_id: number;
  body: string;
  channel: string;
  kind: OutboxFailureKind;
  error: string;
  failed_at: number;
}

export function toOutboxFailure(row: FailureRecord): OutboxFailure {
  return { messageId: row.message_id, body: row.body, channel: row.channel, kind: row.kind, error: row.error, failedAt: row.failed_at };
}

export interface ActionRecord {
  at: number;
  actor: string;
  action: string;
  target: string;
  result: string;
}

export function toOperatorAction(row: ActionRecord): OperatorAction {
  return { at: row.at, actor: row.actor, action: row.action, target: row.target, result: row.result };
}
