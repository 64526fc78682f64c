/**
 * R8: deferred approvals. The answer and the expiry both arrive as an inbox
 * event under the one key ('approval', id); the decision is the engine's
 * (engine/approvals.ts), made on the rows this transaction reads.
 */
import type { ApprovalOutcome, ApprovalRow } from '../contract.js';
import { APPROVAL_COLUMNS, toApprovalRow, type ApprovalRecord } from '../rows.js';
import type { DecideAnswer } from '../engine/port.js';
import type { CheckedApproval } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';
import { insertEvent } from './ingest.js';

/** Asking again for an id that exists changes nothing: a re-ask never extends the deadline. */
export function requestApproval(c: InboxDb, request: CheckedApproval, now: number): void {
  c.stmt(
    `INSERT INTO approvals (id, action, requested_at, expires_at, remind_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (id) DO NOTHING`,
  ).run(request.id, request.actionJson, now, now + request.expiresInMs, request.remindInMs === null ? null : now + request.remindInMs);
}

export function getApproval(c: InboxDb, id: string): ApprovalRow | null {
  const row = c.stmt(`SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE id = ?`).get(id) as ApprovalRecord | undefined;
  return row === undefined ? null : toApprovalRow(row);
}

export function answerApproval(c: InboxDb, id: string, decide: DecideAnswer, now: number): ApprovalOutcome {
  const approval = c.stmt('SELECT action, expires_at, answer FROM approvals WHERE id = ?').get(id) as
    | { action: string; expires_at: number; answer: ApprovalOutcome | null }
    | undefined;
  if (approval === undefined) return 'unknown';
  // The answer recorded stands; its event may have been pruned since (a tombstone keeps its key).
  if (approval.answer !== null) return approval.answer;
  insertEvent(c, decide.event({ actionJson: approval.action, expiresAt: approval.expires_at }, now), now);
  const stored = c.stmt("SELECT payload FROM events WHERE source = 'approval' AND source_id = ?").pluck().get(id) as string | undefined;
  const standing = stored === undefined ? 'unknown' : decide.standing(stored);
  if (standing !== 'unknown') c.stmt('UPDATE approvals SET answer = ?, answered_at = ? WHERE id = ? AND answer IS NULL').run(standing, now, id);
  return standing;
}
