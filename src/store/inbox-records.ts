/**
 * Rows as exportInbox gives them (InboxRecord, contract/data-lifecycle.ts),
 * from the columns both stores name alike: one mapping, two SQL exports
 * (sqlite/export.ts, postgres/lifecycle.ts). JSON columns are parsed, so an
 * export is plain JSON Lines a person can read, and an import checks it
 * as it checks any input (engine/validate/inbox-record.ts).
 */
import type { EventStatus, InboxRecord, InboxSettings, MissedPolicy, OperatorAction, OutboxFailureKind, Usage } from './contract.js';
import type { StoredEffect } from './engine/port.js';
import { toApprovalRow, toTimerRow, type ApprovalRecord, type ListedTimerRecord } from './rows.js';

export const EXPORT_EVENT_COLUMNS =
  'id, source, source_id, payload, status, attempts, error, last_error, received_at, finished_at, claim_gen, last_claim_at';

export interface ExportedEventRow {
  id: number;
  source: string;
  source_id: string;
  payload: string;
  status: EventStatus;
  attempts: number;
  error: string | null;
  last_error: string | null;
  received_at: number;
  finished_at: number | null;
  claim_gen: number | null;
  last_claim_at: number | null;
}

export function eventRecord(row: ExportedEventRow): InboxRecord {
  return {
    type: 'event',
    source: row.source,
    sourceId: row.source_id,
    payload: JSON.parse(row.payload) as unknown,
    status: row.status,
    attempts: row.attempts,
    error: row.error,
    lastError: row.last_error,
    receivedAt: row.received_at,
    finishedAt: row.finished_at,
    claimGen: row.claim_gen,
    lastClaimAt: row.last_claim_at,
  };
}

export interface ExportedMessageRow {
  id: number;
  body: string;
  /** 0/1 on SQLite, a boolean on PostgreSQL. */
  urgent: number | boolean;
  channel: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface ExportedFailureRow {
  message_id: number;
  channel: string;
  kind: OutboxFailureKind;
  error: string;
  failed_at: number;
  redriven_at: number | null;
}

export function messageRecord(row: ExportedMessageRow, failures: ExportedFailureRow[]): InboxRecord {
  return {
    type: 'message',
    body: row.body,
    urgent: row.urgent === true || row.urgent === 1,
    channel: row.channel,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    failures: failures.map((f) => ({ channel: f.channel, kind: f.kind, error: f.error, failedAt: f.failed_at, redrivenAt: f.redriven_at })),
  };
}

export function approvalRecord(row: ApprovalRecord): InboxRecord {
  return { type: 'approval', ...toApprovalRow(row) };
}

export function timerRecord(row: ListedTimerRecord & { missed: MissedPolicy }): InboxRecord {
  return { type: 'timer', ...toTimerRow(row) };
}

export function memoryRecord(row: { key: string; value: string; updated_at: number }): InboxRecord {
  return { type: 'memory', key: row.key, value: JSON.parse(row.value) as unknown, updatedAt: row.updated_at };
}

export function sessionRecord(row: { state: string; updated_at: number }): InboxRecord {
  return { type: 'session', state: JSON.parse(row.state) as unknown, updatedAt: row.updated_at };
}

export function settingsRecord(json: string): InboxRecord {
  return { type: 'settings', settings: JSON.parse(json) as InboxSettings };
}

/** A usage row as both stores select it (USAGE_EXPORT_COLUMNS); `unpriced` is 0/1 on SQLite, a boolean on PostgreSQL. */
export interface ExportedUsageRow {
  at: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
  unpriced: number | boolean;
}

export const USAGE_EXPORT_COLUMNS = 'at, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, unpriced';

export function usageRecord(row: ExportedUsageRow): InboxRecord {
  return {
    type: 'usage',
    at: row.at,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    ...(row.cost_usd === null ? {} : { costUsd: row.cost_usd }),
    ...(row.unpriced === true || row.unpriced === 1 ? { unpriced: true } : {}),
  };
}

/** A usage record's row values after `at`, in USAGE_EXPORT_COLUMNS' order (unpriced as a boolean; no cost is unpriced, as the finish writes it). */
export function usageValues({ usage }: { usage: Usage }): [number, number, number, number, number | null, boolean] {
  const { inputTokens, outputTokens, cacheReadTokens = 0, cacheWriteTokens = 0, costUsd = null, unpriced = false } = usage;
  return [inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, unpriced || costUsd === null];
}

export function actionRecord(row: OperatorAction): InboxRecord {
  return { type: 'action', at: row.at, actor: row.actor, action: row.action, target: row.target, result: row.result };
}

/** Groups an inbox's failure rows by the message they are about. */
export function failuresByMessage(rows: ExportedFailureRow[]): Map<number, ExportedFailureRow[]> {
  const byMessage = new Map<number, ExportedFailureRow[]>();
  for (const row of rows) {
    const list = byMessage.get(row.message_id);
    if (list === undefined) byMessage.set(row.message_id, [row]);
    else list.push(row);
  }
  return byMessage;
}

/** A ledger row (engine/port.ts StoredEffect, named alike by both stores' SELECTs). */
export function effectRecord(row: StoredEffect): InboxRecord {
  const { key, tool, inputHash, state, gen, intendedAt, startedAt, settledAt } = row;
  return { type: 'effect', key, tool, input: JSON.parse(row.inputJson) as Record<string, unknown>, inputHash, state, gen, intendedAt, startedAt, settledAt };
}
