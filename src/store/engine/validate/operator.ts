/** What a person did, as recordAction keeps it: four short texts. */
import { VigilError } from '../../../errors.js';
import type { OperatorAction } from '../../contract.js';
import { checkText } from './query.js';
import { describe } from './text.js';

export type CheckedAction = Omit<OperatorAction, 'at'>;

export function validateOperatorAction(action: unknown): CheckedAction {
  if (typeof action !== 'object' || action === null) {
    throw new VigilError('invalid_argument', `an operator action must be an object { actor, action, target, result }, got ${describe(action)}`);
  }
  const { actor, action: what, target, result } = action as CheckedAction;
  checkText('actor', actor, false);
  checkText('action', what, false);
  checkText('target', target, false);
  checkText('result', result, false);
  return { actor, action: what, target, result };
}
