/**
 * The text rules every key and stored string follows on both stores
 * (contract.ts, "Ids and keys"): bounded length, no lone surrogate and no
 * NUL. SQLite would store a NUL and PostgreSQL's text cannot; both would
 * turn a lone surrogate into U+FFFD. Refused instead, so the two stores
 * keep exactly the same strings.
 */
import { VigilError, type VigilErrorCode } from '../../../errors.js';

export const MAX_KEY_LENGTH = 256;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuses a string that cannot be kept as text unchanged on both stores. */
export function checkStorable(code: VigilErrorCode, name: string, value: string): void {
  if (LONE_SURROGATE.test(value)) {
    throw new VigilError(code, `${name} contains a lone UTF-16 surrogate (at index ${value.search(LONE_SURROGATE)}), which cannot be stored as text`);
  }
  const nul = value.indexOf('\u0000');
  if (nul !== -1) throw new VigilError(code, `${name} contains the NUL character (\\u0000, at index ${nul}), which cannot be stored as text`);
}

// eslint-disable-next-line no-control-regex -- the NUL is what it looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text Vigil writes itself from what it did not choose (an agent's error
 * message, a channel's answer): NUL and lone surrogates become U+FFFD, so
 * reporting a failure can never fail on the report.
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** A key: a non-empty string of at most `max` UTF-16 code units, storable as text. */
export function checkKey(code: VigilErrorCode, name: string, value: unknown, max = MAX_KEY_LENGTH): asserts value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new VigilError(code, `${name} must be a non-empty string of at most ${max} characters, got ${describe(value)}`);
  }
  checkStorable(code, name, value);
}

export function validateLimit(limit: unknown, max = 10_000): number {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > max) {
    throw new VigilError('invalid_argument', `limit must be an integer from 1 to ${max}, got ${describe(limit)}`);
  }
  return limit;
}

export function validateTime(name: string, value: unknown, code: VigilErrorCode = 'invalid_argument'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new VigilError(code, `${name} must be integer milliseconds, got ${describe(value)}`);
  }
  return value;
}

/** A value as an error message shows it: short strings quoted, anything else by its kind. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return `a ${Array.isArray(value) ? 'array' : typeof value}`;
}

/**
 * `value` as the object an input must be, its fields still unchecked; else
 * the call's `code`, saying what it should look like (`what` is e.g. "an
 * event must be an object { source, sourceId, payload? }") and what it got.
 */
export function objectInput<T extends object>(value: unknown, code: VigilErrorCode, what: string): { [K in keyof T]?: unknown } {
  if (typeof value !== 'object' || value === null) throw new VigilError(code, `${what}, got ${describe(value)}`);
  return value as { [K in keyof T]?: unknown };
}
