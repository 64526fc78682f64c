/**
 * R8: deferred approvals. The answer and the expiry both arrive as an inbox
 * event under the one key ('approval', id); the decision is the engine's
 * (engine/approvals.ts), made on the rows this transaction reads.
 */
import type { ApprovalOutcome } from '../contract.js';
import { APPROVAL_COLUMNS } from '../rows.js';
import type { DecideAnswer } from '../engine/port.js';
import type { CheckedApproval } from '../engine/validate/index.js';
import type { InboxTx } from './inbox-tx.js';
import { insertEvents } from './ingest.js';

const REQUEST = `
INSERT INTO approvals (inbox_id, id, action, requested_at, expires_at, remind_at) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (inbox_id, id) DO NOTHING`;

export const GET_APPROVAL = `SELECT ${APPROVAL_COLUMNS} FROM approvals WHERE inbox_id = $1 AND id = $2`;

const STANDING = "SELECT payload FROM events WHERE inbox_id = $1 AND source = 'approval' AND source_id = $2";

const RECORD = `
UPDATE approvals SET answer = $3, answered_at = $4 WHERE inbox_id = $1 AND id = $2 AND answer IS NULL`;

/** Asking again for an id that exists changes nothing: a re-ask never extends the deadline. */
export async function requestApproval(tx: InboxTx, request: CheckedApproval): Promise<void> {
  const remindAt = request.remindInMs === null ? null : tx.now + request.remindInMs;
  await tx.run(REQUEST, [tx.inboxId, request.id, request.actionJson, tx.now, tx.now + request.expiresInMs, remindAt]);
}

export async function answerApproval(tx: InboxTx, id: string, decide: DecideAnswer): Promise<ApprovalOutcome> {
  const [approval] = await tx.rows<{ action: string; expires_at: number; answer: ApprovalOutcome | null }>(
    'SELECT action, expires_at, answer FROM approvals WHERE inbox_id = $1 AND id = $2',
    [tx.inboxId, id],
  );
  if (approval === undefined) return 'unknown';
  // The answer recorded stands; its event may have been pruned since (a tombstone keeps its key).
  if (approval.answer !== null) return approval.answer;
  await insertEvents(tx, [decide.event({ actionJson: approval.action, expiresAt: approval.expires_at }, tx.now)]);
  const [stored] = await tx.rows<{ payload: string }>(STANDING, [tx.inboxId, id]);
  const standing = decide.standing(stored?.payload ?? 'null');
  if (standing !== 'unknown') await tx.run(RECORD, [tx.inboxId, id, standing, tx.now]);
  return standing;
}
