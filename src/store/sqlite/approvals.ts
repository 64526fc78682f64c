/**
 * R8: deferred approvals. The answer and the expiry both arrive as an inbox
 * event under the one key ('approval', id), so whichever is stored first is
 * the only one ever stored.
 */
import { approvalPayload } from '../approval-payload.js';
import type { ApprovalAnswer, ApprovalOutcome } from '../contract.js';
import type { CheckedApproval } from '../validate.js';
import type { InboxDb } from './inbox-db.js';
import { insertEvent } from './ingest.js';

/** Asking again for an id that exists changes nothing: a re-ask never extends the deadline. */
export function requestApproval(c: InboxDb, request: CheckedApproval, now: number): void {
  c.stmt(
    `INSERT INTO approvals (id, action, requested_at, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO NOTHING`,
  ).run(request.id, request.actionJson, now, now + request.expiresInMs);
}

/**
 * Checks the deadline itself rather than trusting the scheduler to have run:
 * a yes that arrives after the deadline is an expiry even if no expiry event
 * exists yet. Returns the outcome that stands.
 */
export function answerApproval(c: InboxDb, id: string, answer: ApprovalAnswer, now: number): ApprovalOutcome {
  const approval = c.stmt('SELECT action, expires_at FROM approvals WHERE id = ?').get(id) as
    | { action: string; expires_at: number }
    | undefined;
  if (approval === undefined) return 'unknown';
  const outcome = now >= approval.expires_at ? 'expired' : answer;
  const payload = approvalPayload(id, outcome, JSON.parse(approval.action) as unknown, approval.expires_at, now);
  insertEvent(c, { source: 'approval', sourceId: id, payloadJson: JSON.stringify(payload) }, now);
  const stored = c.stmt("SELECT payload FROM events WHERE source = 'approval' AND source_id = ?").pluck().get(id) as string;
  const standing = (JSON.parse(stored) as { answer?: unknown }).answer;
  if (standing !== 'yes' && standing !== 'no' && standing !== 'expired') {
    // Someone stored ('approval', id) by hand without an answer: it still blocks any other.
    return 'unknown';
  }
  c.stmt('UPDATE approvals SET answer = ?, answered_at = ? WHERE id = ? AND answer IS NULL').run(standing, now, id);
  return standing;
}
