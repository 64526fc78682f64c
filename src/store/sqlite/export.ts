/**
 * exportInbox on one inbox file: every row as a record (inbox-records.ts),
 * read in one snapshot on a connection of its own, so the inbox keeps
 * taking writes on the store's connection while a large export streams.
 */
import Database from 'better-sqlite3';
import type { InboxRecord } from '../contract.js';
import {
  actionRecord,
  effectRecord,
  approvalRecord,
  EXPORT_EVENT_COLUMNS,
  eventRecord,
  failuresByMessage,
  memoryRecord,
  messageRecord,
  sessionRecord,
  settingsRecord,
  timerRecord,
  type ExportedEventRow,
  type ExportedFailureRow,
  type ExportedMessageRow,
  type ExportedUsageRow,
  USAGE_EXPORT_COLUMNS,
  usageRecord,
} from '../inbox-records.js';
import type { ApprovalRecord, ListedTimerRecord } from '../rows.js';
import type { MissedPolicy, OperatorAction } from '../contract.js';
import { translateSqliteError } from './sqlite-errors.js';
import { EFFECT_COLUMNS } from './effects.js';
import type { StoredEffect } from '../engine/port.js';

export async function* exportFile(file: string, busyTimeoutMs: number): AsyncGenerator<InboxRecord> {
  let db: Database.Database;
  try {
    // Not `readonly`: a read-only connection cannot create the WAL's shared-memory file if no other has it open.
    db = new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
    db.pragma('query_only = ON');
  } catch (error) {
    throw translateSqliteError(error, file);
  }
  try {
    db.exec('BEGIN'); // the snapshot starts at the first read and holds until COMMIT
    if (db.prepare('SELECT deleted FROM meta').pluck().get() === 1) return;
    yield* records(db);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

function* records(db: Database.Database): Generator<InboxRecord> {
  const settings = db.prepare('SELECT json FROM settings').pluck().get() as string | undefined;
  if (settings !== undefined) yield settingsRecord(settings);
  const lease = db.prepare('SELECT gen FROM lease').pluck().get() as number | undefined;
  if (lease !== undefined) yield { type: 'lease', gen: lease };
  const pacing = db.prepare('SELECT last_paced_at, not_before, day, day_sends FROM outbox_pacing').get() as {
    last_paced_at: number | null;
    not_before: number | null;
    day: string | null;
    day_sends: number;
  };
  yield { type: 'pacing', lastPacedAt: pacing.last_paced_at, notBefore: pacing.not_before, day: pacing.day, daySends: pacing.day_sends };
  for (const row of db.prepare(`SELECT ${EXPORT_EVENT_COLUMNS} FROM events ORDER BY id`).iterate()) yield eventRecord(row as ExportedEventRow);
  for (const row of db.prepare('SELECT source, source_id FROM tombstones ORDER BY source, source_id').iterate()) {
    const { source, source_id } = row as { source: string; source_id: string };
    yield { type: 'tombstone', source, sourceId: source_id };
  }
  // Read whole before the messages: one connection runs one statement at a time.
  const failures = failuresByMessage(
    db.prepare('SELECT message_id, channel, kind, error, failed_at, redriven_at FROM outbox_failures ORDER BY id').all() as ExportedFailureRow[],
  );
  for (const row of db.prepare('SELECT id, body, urgent, channel, created_at, sent_at FROM outbox ORDER BY id').iterate()) {
    const message = row as ExportedMessageRow;
    yield messageRecord(message, failures.get(message.id) ?? []);
  }
  for (const row of db.prepare('SELECT id, action, requested_at, expires_at, answer, answered_at, remind_at, reminded_at FROM approvals ORDER BY requested_at, id').iterate()) {
    yield approvalRecord(row as ApprovalRecord);
  }
  for (const row of db.prepare('SELECT * FROM timers ORDER BY id').iterate()) yield timerRecord(row as ListedTimerRecord & { missed: MissedPolicy });
  for (const row of db.prepare('SELECT key, value, updated_at FROM memory ORDER BY key').iterate()) {
    yield memoryRecord(row as { key: string; value: string; updated_at: number });
  }
  const session = db.prepare('SELECT state, updated_at FROM session').get() as { state: string; updated_at: number } | undefined;
  if (session !== undefined) yield sessionRecord(session);
  for (const row of db.prepare('SELECT at, actor, action, target, result FROM operator_actions ORDER BY id').iterate()) {
    yield actionRecord(row as OperatorAction);
  }
  for (const row of db.prepare(`SELECT ${EFFECT_COLUMNS} FROM effects ORDER BY intended_at, key`).iterate()) yield effectRecord(row as StoredEffect);
  for (const row of db.prepare(`SELECT ${USAGE_EXPORT_COLUMNS} FROM usage ORDER BY id`).iterate()) yield usageRecord(row as ExportedUsageRow);
}
