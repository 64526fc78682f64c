/**
 * The words both the dashboard and the CLI use when they record what a
 * person did (`inbox.recordAction`), so the record reads the same whichever
 * way the action came in.
 */
import { userInfo } from 'node:os';
import type { ApprovalAnswer, ApprovalOutcome } from '../store/contract.js';

/** `cli:<login name>` for the CLI, `dashboard:<session id>` for the dashboard. */
export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli'; // no passwd entry for this uid (some containers)
  }
}

export function redriveResult(redriven: boolean): string {
  return redriven ? 'pending again' : 'not dead (nothing changed)';
}

/** What an answer did: the answer itself, too late, or someone else's first answer standing. */
export function answerResult(answer: ApprovalAnswer, outcome: Exclude<ApprovalOutcome, 'unknown'>): string {
  if (outcome === answer) return outcome;
  if (outcome === 'expired') return 'expired (too late)';
  return `already answered ${outcome}`;
}
