/**
 * The store contract, part: an inbox's quotas. What arrives from outside
 * (webhooks, the messages API) is ingested with a quota; Vigil's own events
 * (timer firings, approval answers and expiries, redrives) never are, so a
 * full inbox still hears its own timers. Inbox.ingest in ../contract.ts
 * takes them; InboxStats.usage reports what they are measured against.
 */

/** Limits on one inbox, each a whole number >= 0. */
export interface InboxLimits {
  /** Most events stored and not yet done or dead (pending or running). */
  pendingEventsPerInbox: number;
  /** Most bytes of those events' payloads (UTF-8 JSON). */
  pendingBytesPerInbox: number;
  /** Most events from outside stored in one minute of the store's clock (a fixed window: :00 to :59). */
  eventsPerMinutePerInbox: number;
}

export interface IngestOptions {
  /**
   * Refuse the event, storing nothing, when storing it would take the
   * inbox past these limits (the inbox's own `limits` setting, where it has
   * one, overrides each): `inbox_full` or `rate_limited`, a
   * QuotaExceededError saying when to try again. A duplicate is never
   * refused: it stores nothing. Absent: no quota (Vigil's own events).
   */
  quota?: InboxLimits;
}

/** What an inbox holds against its limits now. */
export interface InboxUsage {
  pendingEvents: number;
  pendingBytes: number;
  /** Events from outside stored in the current minute. */
  eventsThisMinute: number;
}
