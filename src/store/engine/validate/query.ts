/**
 * Input rules of the reads: event listings (R6's dead letters among them),
 * the dashboard's pages, the overview and activity over time. Each throws a
 * VigilError before anything is read.
 */
import { VigilError } from '../../../errors.js';
import type { EventQuery, EventStatus, InboxListQuery } from '../../contract.js';
import { checkKey, checkStorable, describe, validateLimit } from './text.js';

const EVENT_STATUSES: readonly EventStatus[] = ['pending', 'running', 'done', 'dead'];

/** An event listing's query, checked: every field present. */
export interface CheckedEventQuery {
  status: EventStatus | null;
  source: string | null;
  limit: number;
  newestFirst: boolean;
  /** Only ids past this one in the listing's order; null for the first page. */
  afterId: number | null;
}

export function validateEventQuery(query: unknown): CheckedEventQuery {
  if (query !== undefined && query !== null && typeof query !== 'object') {
    throw new VigilError('invalid_argument', `an event query must be an object { status?, source?, limit?, newestFirst?, afterId? }, got ${describe(query)}`);
  }
  const { status, source, limit = 100, newestFirst = false, afterId } = (query ?? {}) as EventQuery;
  if (status !== undefined && !EVENT_STATUSES.includes(status)) {
    throw new VigilError('invalid_argument', `status must be one of ${EVENT_STATUSES.join(', ')}, got ${describe(status)}`);
  }
  if (source !== undefined) checkKey('invalid_argument', 'source', source);
  if (typeof newestFirst !== 'boolean') throw new VigilError('invalid_argument', `newestFirst must be a boolean, got ${describe(newestFirst)}`);
  if (afterId !== undefined && (typeof afterId !== 'number' || !Number.isSafeInteger(afterId))) {
    throw new VigilError('invalid_argument', `afterId must be an event id (an integer), got ${describe(afterId)}`);
  }
  return { status: status ?? null, source: source ?? null, limit: validateLimit(limit), newestFirst, afterId: afterId ?? null };
}

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

/**
 * Text a person typed: a string of at most MAX_TEXT_LENGTH characters,
 * non-empty unless `mayBeEmpty`, storable as text on both stores.
 */
export function checkText(name: string, value: unknown, mayBeEmpty: boolean): asserts value is string {
  if (typeof value !== 'string' || (!mayBeEmpty && value.length === 0) || value.length > MAX_TEXT_LENGTH) {
    const what = mayBeEmpty ? 'a string' : 'a non-empty string';
    throw new VigilError('invalid_argument', `${name} must be ${what} of at most ${MAX_TEXT_LENGTH} characters, got ${describe(value)}`);
  }
  checkStorable('invalid_argument', name, value);
}
