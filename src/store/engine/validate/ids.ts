/** R11 and R2/R3's arguments: inbox ids, holders, generations, event ids. */
import { VigilError } from '../../../errors.js';
import { checkKey, describe } from './text.js';

/** R11: an id is a name, never a path (no `/`, no leading dot, bounded length). */
export const INBOX_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function validateInboxId(id: unknown): string {
  if (typeof id !== 'string' || !INBOX_ID_PATTERN.test(id)) {
    throw new VigilError(
      'invalid_inbox_id',
      `inbox id ${describe(id)} is invalid: use 1-128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit`,
    );
  }
  return id;
}

/** The refusal when an id differs from an existing inbox's only in case (contract.ts, "Ids and keys"). */
export function caseCollision(id: string, existing: string): VigilError {
  return new VigilError(
    'invalid_inbox_id',
    `inbox "${id}" cannot be created: inbox "${existing}" exists, and two inbox ids may not differ only in case (a file system that ignores case would give them one file)`,
  );
}

export function validateHolder(holder: unknown): string {
  checkKey('invalid_argument', 'holder', holder);
  return holder;
}

export function validateGen(gen: unknown): number {
  if (typeof gen !== 'number' || !Number.isSafeInteger(gen) || gen < 1) {
    throw new VigilError('invalid_argument', `gen must be a positive integer, got ${describe(gen)}`);
  }
  return gen;
}

export function validateEventId(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) {
    throw new VigilError('invalid_argument', `event id must be a positive integer, got ${describe(id)}`);
  }
  return id;
}

export function validateEventIds(ids: unknown): number[] {
  if (!Array.isArray(ids)) throw new VigilError('invalid_argument', 'ids must be an array of event ids');
  return [...new Set(ids.map(validateEventId))];
}
