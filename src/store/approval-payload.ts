/**
 * R8: the one event stored per approval, whichever path stores it. An expiry
 * looks the same whether the scheduler wrote it or a late answer did, so an
 * agent never has to care which came first.
 */
import type { ApprovalOutcome } from './contract.js';

export function approvalPayload(
  id: string,
  outcome: Exclude<ApprovalOutcome, 'unknown'>,
  action: unknown,
  expiresAt: number,
  now: number,
): Record<string, unknown> {
  if (outcome !== 'expired') return { approval: id, answer: outcome, action };
  return { approval: id, answer: 'expired', action, scheduledFor: expiresAt, lateBy: now - expiresAt, skipped: 0 };
}

/**
 * The source of an approval's reminder event; its sourceId is the approval
 * id, so R1 stores at most one per approval. Reserved: no webhook source may
 * take the name (config/schema.ts RESERVED_SOURCES), so none can forge one.
 */
export const APPROVAL_REMINDER_SOURCE = 'approval-reminder';

/** What a reminder event carries: enough for the runtime to sign the same link the question had. */
export interface ApprovalReminderPayload {
  approval: string;
  action: unknown;
  /** When the reminder was due, and when the approval expires (the deadline the link is signed with). */
  remindAt: number;
  expiresAt: number;
}

export function approvalReminderPayload(id: string, action: unknown, remindAt: number, expiresAt: number): ApprovalReminderPayload {
  return { approval: id, action, remindAt, expiresAt };
}
