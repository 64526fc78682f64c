/**
 * R8: deciding an answer. The answer and the expiry both arrive as an inbox
 * event under the one key ('approval', id), so whichever is stored first is
 * the only one ever stored, and the outcome returned is the one it says.
 * The deadline is checked here rather than trusting the scheduler to have
 * run: a yes that arrives after it is an expiry even if no expiry event
 * exists yet.
 */
import { approvalPayload } from '../approval-payload.js';
import type { ApprovalAnswer, ApprovalOutcome } from '../contract.js';
import type { DecideAnswer } from './port.js';

export function decideAnswer(id: string, answer: ApprovalAnswer): DecideAnswer {
  return {
    event(approval, now) {
      const outcome = now >= approval.expiresAt ? 'expired' : answer;
      const payload = approvalPayload(id, outcome, JSON.parse(approval.actionJson) as unknown, approval.expiresAt, now);
      return { source: 'approval', sourceId: id, payloadJson: JSON.stringify(payload) };
    },
    standing(storedPayloadJson) {
      const standing = (JSON.parse(storedPayloadJson) as { answer?: unknown } | null)?.answer;
      // Someone stored ('approval', id) by hand without an answer: it still blocks any other.
      return standing === 'yes' || standing === 'no' || standing === 'expired' ? (standing as ApprovalOutcome) : 'unknown';
    },
  };
}
