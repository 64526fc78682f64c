/** R8's input: an approval request, its id and its answer. */
import { VigilError } from '../../../errors.js';
import type { ApprovalAnswer, ApprovalRequest } from '../../contract.js';
import { MAX_DURATION_MS } from './bounds.js';
import { toJson } from './json.js';
import { checkKey, describe, objectInput } from './text.js';

export interface CheckedApproval {
  id: string;
  expiresInMs: number;
  actionJson: string;
  /** The reminder's delay after the ask, in ms (null: none): the share of expiresInMs, rounded. */
  remindInMs: number | null;
}

export function validateApprovalRequest(request: unknown, maxBytes: number): CheckedApproval {
  const { id, expiresInMs, action, remindAt } = objectInput<ApprovalRequest>(request, 'invalid_argument', 'an approval request must be an object { id, expiresInMs, action }');
  const checkedId = validateApprovalId(id);
  // Bounded (bounds.ts), so now + expiresInMs is always a date.
  if (typeof expiresInMs !== 'number' || !Number.isSafeInteger(expiresInMs) || expiresInMs <= 0 || expiresInMs > MAX_DURATION_MS) {
    throw new VigilError('invalid_argument', `expiresInMs must be a whole number of milliseconds from 1 to ${MAX_DURATION_MS} (ten years), got ${describe(expiresInMs)}`, { field: 'expiresInMs' });
  }
  const actionJson = toJson('invalid_argument', 'action', action === undefined ? null : action, maxBytes);
  return { id: checkedId, expiresInMs, actionJson, remindInMs: remindInMs(remindAt, expiresInMs) };
}

/** A reminder share is strictly inside the approval's life: at 0 it would remind as it asks, at 1 as it expires. */
export function validateRemindAt(remindAt: unknown): number | null {
  if (remindAt === undefined || remindAt === null) return null;
  if (typeof remindAt !== 'number' || !Number.isFinite(remindAt) || remindAt <= 0 || remindAt >= 1) {
    throw new VigilError('invalid_argument', `remindAt must be a share of the approval's life between 0 and 1 (exclusive), or null for no reminder, got ${describe(remindAt)}`, { field: 'remindAt' });
  }
  return remindAt;
}

function remindInMs(remindAt: unknown, expiresInMs: number): number | null {
  const share = validateRemindAt(remindAt);
  return share === null ? null : Math.round(share * expiresInMs);
}

export function validateApprovalId(id: unknown): string {
  checkKey('invalid_argument', 'approval id', id);
  return id;
}

export function validateAnswer(answer: unknown): ApprovalAnswer {
  if (answer !== 'yes' && answer !== 'no') {
    throw new VigilError('invalid_argument', `an approval answer is 'yes' or 'no', got ${describe(answer)}`);
  }
  return answer;
}
