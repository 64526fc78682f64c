/**
 * Input rules of the dashboard's reads and operator actions (listInboxes,
 * approvals, outbox, activity, recordAction): limits, queries and the text
 * a person typed. Like validate.ts, each throws a VigilError before
 * anything is read or written.
 */
import { VigilError } from '../errors.js';
import type { InboxListQuery, OperatorAction } from './contract.js';
import { checkWellFormed, describe, validateLimit } from './validate.js';

/** The limit of a dashboard read (approvals, outbox, actions): default 50, at most 500. */
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;

export function validatePageQuery(query: unknown): number {
  if (query !== undefined && query !== null && typeof query !== 'object') {
    throw new VigilError('invalid_argument', `the query must be an object { limit? }, got ${describe(query)}`);
  }
  const { limit = DEFAULT_PAGE } = (query ?? {}) as { limit?: unknown };
  return validateLimit(limit, MAX_PAGE);
}

export interface CheckedInboxListQuery {
  search: string | null;
  after: string | null;
  limit: number;
  attention: boolean;
  stuckAfterMs: number;
}

/** Longest free text a person may hand the dashboard's calls (a search, an action's fields). */
export const MAX_TEXT_LENGTH = 1_000;

export function validateInboxListQuery(query: unknown): CheckedInboxListQuery {
  if (query !== undefined && query !== null && typeof query !== 'object') {
    throw new VigilError('invalid_argument', `an inbox list query must be an object { search?, after?, limit?, attention?, stuckAfterMs? }, got ${describe(query)}`);
  }
  const { search, after, limit = DEFAULT_PAGE, attention = false, stuckAfterMs = 60_000 } = (query ?? {}) as InboxListQuery;
  if (search !== undefined) checkText('search', search, true);
  if (after !== undefined) checkText('after', after, true);
  if (typeof attention !== 'boolean') throw new VigilError('invalid_argument', `attention must be a boolean, got ${describe(attention)}`);
  if (typeof stuckAfterMs !== 'number' || !Number.isSafeInteger(stuckAfterMs) || stuckAfterMs < 0) {
    throw new VigilError('invalid_argument', `stuckAfterMs must be a non-negative integer of milliseconds, got ${describe(stuckAfterMs)}`);
  }
  return {
    search: search === undefined || search === '' ? null : search,
    after: after === undefined ? null : after,
    limit: validateLimit(limit, MAX_PAGE),
    attention,
    stuckAfterMs,
  };
}

/** At most this many buckets in one activity read. */
export const MAX_BUCKETS = 10_000;

export interface CheckedActivityQuery {
  since: number;
  bucketMs: number;
}

export function validateActivityQuery(query: unknown): CheckedActivityQuery {
  if (typeof query !== 'object' || query === null) {
    throw new VigilError('invalid_argument', `an activity query must be an object { since, bucketMs }, got ${describe(query)}`);
  }
  const { since, bucketMs } = query as { since?: unknown; bucketMs?: unknown };
  if (typeof since !== 'number' || !Number.isSafeInteger(since) || since < 0) {
    throw new VigilError('invalid_argument', `since must be a non-negative integer of milliseconds, got ${describe(since)}`);
  }
  if (typeof bucketMs !== 'number' || !Number.isSafeInteger(bucketMs) || bucketMs <= 0) {
    throw new VigilError('invalid_argument', `bucketMs must be a positive integer of milliseconds, got ${describe(bucketMs)}`);
  }
  return { since, bucketMs };
}

/** How many buckets `since` to `now` makes (the bucket holding now included); refuses more than MAX_BUCKETS. */
export function bucketCount({ since, bucketMs }: CheckedActivityQuery, now: number): number {
  if (now < since) return 0;
  const count = Math.floor((now - since) / bucketMs) + 1;
  if (count > MAX_BUCKETS) {
    throw new VigilError(
      'invalid_argument',
      `since ${since} with bucketMs ${bucketMs} makes ${count} buckets up to now (${now}); the limit is ${MAX_BUCKETS}: use a later since or larger buckets`,
    );
  }
  return count;
}

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

/**
 * Text a person typed: a string of at most MAX_TEXT_LENGTH characters,
 * non-empty unless `mayBeEmpty`, storable as text on both stores (no lone
 * surrogate, no NUL, which PostgreSQL's text cannot hold).
 */
function checkText(name: string, value: unknown, mayBeEmpty: boolean): asserts value is string {
  if (typeof value !== 'string' || (!mayBeEmpty && value.length === 0) || value.length > MAX_TEXT_LENGTH) {
    const what = mayBeEmpty ? 'a string' : 'a non-empty string';
    throw new VigilError('invalid_argument', `${name} must be ${what} of at most ${MAX_TEXT_LENGTH} characters, got ${describe(value)}`);
  }
  checkWellFormed('invalid_argument', name, value);
  if (value.includes('\u0000')) throw new VigilError('invalid_argument', `${name} cannot contain the NUL character (\\u0000)`);
}
