/**
 * Quotas per inbox (contract/limits.ts): the rule that admits or refuses an
 * ingest from outside. Decided here once; the SQLite backend calls `admit`
 * inside the ingest's transaction, with the usage it read there, and the
 * PostgreSQL one runs the same comparison in vigil_check_quota
 * (functions/quota.sql), which the conformance suite holds to this
 * (test/conformance/quotas.ts).
 *
 * How each backend knows the usage: SQLite keeps it on the inbox's meta
 * row (the inserts count what they stored; triggers count status changes
 * and deletes), so its check is one row read however full the inbox is.
 * PostgreSQL counts pending events from the events themselves, at most one
 * past the limit (functions/quota.sql): a check there costs what the inbox
 * holds pending, bounded by its limit. Pending means not yet done or dead,
 * so retention (which prunes only finished rows) never leaves a long-lived
 * inbox full for good. The rate is a fixed one-minute window counted in the
 * store, so every instance on one PostgreSQL shares it; a window that
 * straddles a minute boundary may let up to twice the rate through, which
 * is the price of one counter row instead of a log of arrivals.
 */
import { QuotaExceededError } from '../../errors.js';
import type { InboxLimits, InboxSettings, InboxUsage } from '../contract.js';

export const RATE_WINDOW_MS = 60_000;
/**
 * What a full inbox asks a sender to wait: its agent needs time to work
 * through its backlog, and a provider that retries on its own (Stripe,
 * Svix, Slack) backs off further each time anyway.
 */
export const FULL_RETRY_AFTER_MS = 60_000;

/** Why an ingest was refused, and the transaction's now (for Retry-After). */
export interface QuotaRefusal {
  refused: 'inbox_full' | 'rate_limited';
  now: number;
}

/** The limits that apply to an inbox: the service's, each overridden by the inbox's own `limits` setting. */
export function effectiveLimits(quota: InboxLimits, settings: InboxSettings): InboxLimits {
  const own = settings.limits ?? {};
  return {
    pendingEventsPerInbox: own.pendingEventsPerInbox ?? quota.pendingEventsPerInbox,
    pendingBytesPerInbox: own.pendingBytesPerInbox ?? quota.pendingBytesPerInbox,
    eventsPerMinutePerInbox: own.eventsPerMinutePerInbox ?? quota.eventsPerMinutePerInbox,
  };
}

/** The minute window `now` is in, as stored beside its count. */
export function rateWindow(now: number): number {
  return Math.floor(now / RATE_WINDOW_MS);
}

/**
 * Whether `events` new events of `bytes` payload bytes may be stored, given
 * the inbox's usage at the transaction's now: null, or why not. A limit is
 * a most: storing up to it is allowed, past it refused. Full is checked
 * before the rate, as the lasting condition.
 */
export function admit(usage: InboxUsage, limits: InboxLimits, events: number, bytes: number): QuotaRefusal['refused'] | null {
  if (usage.pendingEvents + events > limits.pendingEventsPerInbox || usage.pendingBytes + bytes > limits.pendingBytesPerInbox) return 'inbox_full';
  if (usage.eventsThisMinute + events > limits.eventsPerMinutePerInbox) return 'rate_limited';
  return null;
}

/** The error a refusal is, with when to try again: the next minute for a rate, FULL_RETRY_AFTER_MS for a full inbox. */
export function quotaError(inboxId: string, refusal: QuotaRefusal): QuotaExceededError {
  if (refusal.refused === 'rate_limited') {
    const retryAfterMs = (rateWindow(refusal.now) + 1) * RATE_WINDOW_MS - refusal.now;
    return new QuotaExceededError('rate_limited', `inbox ${JSON.stringify(inboxId)} takes no more events from outside this minute; nothing was stored`, retryAfterMs);
  }
  return new QuotaExceededError(
    'inbox_full',
    `inbox ${JSON.stringify(inboxId)} holds as many pending events (or bytes) as its limits allow; nothing was stored`,
    FULL_RETRY_AFTER_MS,
  );
}

/** The result of one event of an ingest on a port: stored, a duplicate, or refused by its quota. */
export type IngestResult = boolean | QuotaRefusal;
