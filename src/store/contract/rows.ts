/**
 * The store contract, part: the rows the verbs take and give (an event as
 * it arrives, is claimed and is read; a timer; an approval; the lease), so
 * that the other parts and the event map can name them without importing
 * the verbs. The verbs are in ../contract.ts.
 */
export type EventStatus = 'pending' | 'running' | 'done' | 'dead';

/** What a source hands to `ingest`: its own unique key and the body. */
export interface NewEvent {
  source: string;
  sourceId: string;
  payload?: unknown;
}

export interface ClaimedEvent {
  id: number;
  source: string;
  sourceId: string;
  payload: unknown;
  /** Attempts including this one (counted at claim, R4). */
  attempts: number;
}

export interface EventRow extends ClaimedEvent {
  status: EventStatus;
  /** `too many attempts` for a dead event, the run's error for a retried one. */
  error: string | null;
  /** The error the last failed run reported, kept when the event dies. */
  lastError: string | null;
  receivedAt: number;
}

/** What a timer does with occurrences it missed (the service was down): one event for the latest, or one each. */
export type MissedPolicy = 'coalesce' | 'each';

/**
 * A timer (R7): one-off (`due` alone), interval (`due` and `every`) or cron
 * (`cron`, with `tz`). Adding one with an id that exists replaces it. Each
 * occurrence becomes an event `('timer', '<id>@<scheduledFor>')` (a fixed
 * `key` instead, for a one-off), whose payload is `payload` with
 * `scheduledFor`, `lateBy` and `skipped` added.
 *
 * ```ts
 * await ctx.addTimer({ id: 'digest', cron: '0 9 * * *', tz: 'Europe/Berlin', payload: { task: 'digest' } });
 * await ctx.addTimer({ id: 'follow-up', due: ctx.now + 3_600_000, payload: { order: '42' } });
 * await ctx.addTimer({ id: 'heartbeat', due: ctx.now, every: 15 * 60_000, missed: 'coalesce' });
 * ```
 */
export interface TimerSpec {
  /** Names the timer in its inbox: at most 200 characters; the same id again replaces it. */
  id: string;
  /** The first (or only) occurrence, in epoch milliseconds, within ±BOUNDS.maxTimeMs (the year 9999). Required unless `cron` is given; for a cron timer, default the next match after now. */
  due?: number;
  /** Repeat every this many milliseconds after `due` (a positive integer, at most BOUNDS.maxDurationMs: ten years); not with `cron`. */
  every?: number;
  /** A cron pattern (croner's: five fields, or six with seconds), e.g. `'0 9 * * 1-5'`; not with `every`. */
  cron?: string;
  /** The IANA time zone `cron` is read in (default UTC), e.g. `'Europe/Berlin'`: DST-correct. Cron timers only. */
  tz?: string;
  /** A plain JSON object, copied into every occurrence's event (within the store's maxPayloadBytes). */
  payload?: Record<string, unknown>;
  /** A fixed event key instead of `('timer', '<id>@<scheduledFor>')`: one-off timers only, e.g. to fire into another source. */
  key?: { source: string; sourceId: string };
  /**
   * Occurrences the scheduler did not fire in time (the service was down):
   * `'coalesce'` (default) fires one event for the latest, with `skipped`
   * counting the others; `'each'` fires one per occurrence, each under its own key.
   */
  missed?: MissedPolicy;
}

/** When a timer fires, as it is stored: what its row and the scheduler's plan share. */
export interface TimerSchedule {
  id: string;
  /** The next scheduled occurrence. */
  due: number;
  every: number | null;
  cron: string | null;
  tz: string | null;
  missed: MissedPolicy;
}

export interface TimerRow extends TimerSchedule {
  done: boolean;
  payload: Record<string, unknown>;
  key: { source: string; sourceId: string } | null;
  /** How many occurrences the last coalesced firing passed over. */
  lastSkipped: number | null;
}

export interface ApprovalRequest {
  id: string;
  /** How long the question stays open, in ms: a positive integer, at most BOUNDS.maxDurationMs (ten years). */
  expiresInMs: number;
  action: unknown;
  /**
   * When to remind, as a share of expiresInMs (0 < remindAt < 1): one
   * reminder event ('approval-reminder', id) is stored at requested time +
   * remindAt × expiresInMs if the approval is still open then, never after
   * its answer or deadline. Absent or null: no reminder (the runtime fills in
   * its default, 0.75, for the approvals a run asks).
   */
  remindAt?: number | null;
}

export type ApprovalAnswer = 'yes' | 'no';
export type ApprovalOutcome = ApprovalAnswer | 'expired' | 'unknown';

export interface LeaseInfo {
  holder: string;
  gen: number;
  until: number;
}
