/**
 * R8: deferred approvals. The answer and the expiry both arrive as an inbox
 * event under the one key ('approval', id), so whichever is stored first is
 * the only one ever stored.
 */
import { approvalPayload } from '../approval-payload.js';
import type { ApprovalAnswer, ApprovalOutcome } from '../contract.js';
import type { CheckedApproval } from '../validate.js';
import type { InboxTx } from './inbox-tx.js';
import { insertEvents } from './ingest.js';

const REQUEST = `
INSERT INTO approvals (inbox_id, id, action, requested_at, expires_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (inbox_id, id) DO NOTHING`;

const STANDING = "SELECT payload FROM events WHERE inbox_id = $1 AND source = 'approval' AND source_id = $2";

const RECORD = `
UPDATE approvals SET answer = $3, answered_at = $4 WHERE inbox_id = $1 AND id = $2 AND answer IS NULL`;

/** Asking again for an id that exists changes nothing: a re-ask never extends the deadline. */
export async function requestApproval(tx: InboxTx, request: CheckedApproval): Promise<void> {
  await tx.run(REQUEST, [tx.inboxId, request.id, request.actionJson, tx.now, tx.now + request.expiresInMs]);
}

/**
 * Checks the deadline itself rather than trusting the scheduler to have run:
 * a yes that arrives after the deadline is an expiry even if no expiry event
 * exists yet. Returns the outcome that stands.
 */
export async function answerApproval(tx: InboxTx, id: string, answer: ApprovalAnswer): Promise<ApprovalOutcome> {
  const [approval] = await tx.rows<{ action: string; expires_at: number }>(
    'SELECT action, expires_at FROM approvals WHERE inbox_id = $1 AND id = $2',
    [tx.inboxId, id],
  );
  if (approval === undefined) return 'unknown';
  const outcome = tx.now >= approval.expires_at ? 'expired' : answer;
  const payload = approvalPayload(id, outcome, JSON.parse(approval.action) as unknown, approval.expires_at, tx.now);
  await insertEvents(tx, [{ source: 'approval', sourceId: id, payloadJson: JSON.stringify(payload) }]);
  const [stored] = await tx.rows<{ payload: string }>(STANDING, [tx.inboxId, id]);
  const standing = (JSON.parse(stored?.payload ?? 'null') as { answer?: unknown } | null)?.answer;
  if (standing !== 'yes' && standing !== 'no' && standing !== 'expired') {
    // Someone stored ('approval', id) by hand without an answer: it still blocks any other.
    return 'unknown';
  }
  await tx.run(RECORD, [tx.inboxId, id, standing, tx.now]);
  return standing;
}
