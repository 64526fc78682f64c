/**
 * What an agent keeps between runs, checked before any store writes it: its
 * session (one JSON value per inbox) and its memory (JSON values by key).
 * Both are saved only by a successful finish, in its transaction, so a run
 * that fails or loses its lease leaves them as the last good run left them.
 */
import { VigilError } from '../../../errors.js';
import type { MemoryChanges } from '../../contract.js';
import { toJson } from './json.js';
import { checkKey } from './text.js';

export const MEMORY_LIMITS = {
  /** Characters in a key. */
  keyLength: 200,
  /** One value as JSON. */
  valueBytes: 65_536,
  /** All of one inbox's keys and values together, as stored. */
  totalBytes: 1_048_576,
} as const;

/** undefined: leave the session as it is; null: clear it; a string: the new session as JSON. */
export type CheckedSession = string | null | undefined;

export interface CheckedMemory {
  set: { key: string; json: string }[];
  delete: string[];
}

export const NO_MEMORY_CHANGES: CheckedMemory = { set: [], delete: [] };

export function validateSession(session: unknown, maxBytes: number): CheckedSession {
  if (session === undefined || session === null) return session;
  return toJson('invalid_argument', 'outcome.session', session, maxBytes);
}

export function validateMemoryKey(key: unknown): string {
  checkKey('invalid_memory', 'a memory key', key, MEMORY_LIMITS.keyLength);
  return key;
}

export function validateMemoryValue(key: string, value: unknown): string {
  if (value === undefined) throw new VigilError('invalid_memory', `memory ${JSON.stringify(key)}: undefined is not a value (delete the key instead)`);
  const json = toJson('invalid_memory', `memory ${JSON.stringify(key)}`, value, MEMORY_LIMITS.valueBytes);
  return json;
}

export function validateMemoryChanges(changes: unknown): CheckedMemory {
  if (changes === undefined) return NO_MEMORY_CHANGES;
  if (typeof changes !== 'object' || changes === null || Array.isArray(changes)) {
    throw new VigilError('invalid_memory', 'outcome.memory must be an object { set?, delete? }');
  }
  const { set = {}, delete: deleted = [] } = changes as MemoryChanges;
  if (typeof set !== 'object' || set === null || Array.isArray(set)) throw new VigilError('invalid_memory', 'outcome.memory.set must be an object of key: value');
  if (!Array.isArray(deleted)) throw new VigilError('invalid_memory', 'outcome.memory.delete must be an array of keys');
  const checkedSet = Object.entries(set).map(([key, value]) => ({ key: validateMemoryKey(key), json: validateMemoryValue(key, value) }));
  const checkedDelete = deleted.map(validateMemoryKey);
  const both = checkedDelete.find((key) => Object.hasOwn(set, key));
  if (both !== undefined) throw new VigilError('invalid_memory', `memory ${JSON.stringify(both)} is both set and deleted`);
  return { set: checkedSet, delete: checkedDelete };
}

/** Thrown inside a finish's transaction, which then rolls back whole. */
export function memoryFull(totalBytes: number): VigilError {
  return new VigilError(
    'memory_full',
    `this finish would leave the inbox's memory at ${totalBytes} bytes; the limit is ${MEMORY_LIMITS.totalBytes}: delete keys first. Nothing of the finish was saved`,
  );
}
