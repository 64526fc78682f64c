/**
 * The rows both stores read back from their SQL (the same snake_case
 * columns on SQLite and PostgreSQL) and how each becomes what the contract
 * returns. One mapping, so the two stores cannot drift apart in what they
 * hand a caller.
 */
import type { ClaimedEvent, EventRow, EventStatus, InboxStats, MissedPolicy, TimerRow } from './contract.js';

export const EVENT_COLUMNS = 'id, source, source_id, payload, status, attempts, error, last_error, received_at';

export interface ClaimedRecord {
  id: number;
  source: string;
  source_id: string;
  payload: string;
  attempts: number;
}

export interface EventRecord extends ClaimedRecord {
  status: EventStatus;
  error: string | null;
  last_error: string | null;
  received_at: number;
}

export interface TimerRecord {
  id: string;
  due: number;
  every: number | null;
  cron: string | null;
  tz: string | null;
  missed: MissedPolicy;
  payload: string;
  key_source: string | null;
  key_source_id: string | null;
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
    id: row.id,
    due: row.due,
    every: row.every,
    cron: row.cron,
    tz: row.tz,
    missed: row.missed,
    done: row.done === true || row.done === 1,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    key: row.key_source !== null && row.key_source_id !== null ? { source: row.key_source, sourceId: row.key_source_id } : null,
    lastSkipped: row.last_skipped,
  };
}

/** Stats of an inbox that was never written. */
export function emptyStats(): InboxStats {
  return {
    events: { pending: 0, running: 0, done: 0, dead: 0 },
    outbox: { held: 0, sent: 0 },
    timers: 0,
    approvalsPending: 0,
    lease: null,
  };
}
