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
