/**
 * The store contract, part: an inbox's own settings, its person's terms
 * (addresses, pacing, quiet hours, debounce), stored in the inbox and read
 * by the dispatcher and the wake rule. Inbox.settings and
 * Inbox.updateSettings in ../contract.ts read and change them.
 */
import type { InboxLimits } from './limits.js';

/** A person's quiet hours: wall-clock times in an IANA time zone; `from` after `to` spans midnight. */
export interface QuietHours {
  /** "HH:MM", 24-hour. */
  from: string;
  to: string;
  /** Default: the inbox's `timeZone`, else UTC. */
  timeZone?: string;
}

/**
 * What one inbox's person may spend (engine/budget.ts), in their days and
 * months (`timeZone`). Each key absent: the service's default budget's, if any.
 */
export interface InboxBudget {
  /** Tokens of every kind (input, output, cache reads and writes) per local day. */
  tokensPerDay?: number;
  costPerDayUsd?: number;
  costPerMonthUsd?: number;
  /** A run never starts with less than this left of the day's or the month's cost budget. */
  minimumLeftUsd?: number;
}

/**
 * One inbox's own settings (its person's terms), stored in the inbox.
 * Absent keys mean the store's defaults.
 */
export interface InboxSettings {
  /**
   * The person's IANA time zone (default UTC): their days and months, which
   * usage is counted in and a budget is measured by, and the outbox's quiet
   * hours and daily limit unless those name their own.
   */
  timeZone?: string;
  /** Where each channel reaches this inbox's person: `{ slack: 'D0123', email: 'ana@example.com' }`. */
  contacts?: Record<string, string>;
  outbox?: {
    /** Least time between two paced sends (overrides the store's outboxGapMs), ms, 0 to BOUNDS.maxDurationMs (ten years). */
    gapMs?: number;
    /** Non-urgent messages wait out these hours, then go together. */
    quietHours?: QuietHours;
    /** Most non-urgent sends (batches) per local day (the quiet hours' time zone, else `timeZone`, else UTC), 0 to BOUNDS.maxCount. */
    dailyLimit?: number;
  };
  wake?: {
    /** A burst of events becomes one run: the inbox is ready once its newest pending event is this old (ms, at most ten years)... */
    debounceMs?: number;
    /** ...or its oldest pending event is this old, whichever comes first (default 10 × debounceMs; at most ten years). */
    maxWaitMs?: number;
  };
  /**
   * This inbox's quotas, each overriding the service's (contract/limits.ts).
   * Operator-only: an agent's ctx.updateSettings refuses them
   * (`operator_only`), so an agent talked into it cannot raise its own.
   */
  limits?: Partial<InboxLimits>;
  /**
   * What the person may spend; spent, the inbox is paused until the period
   * ends or the budget is raised. Operator-only, like `limits`.
   */
  budget?: InboxBudget;
}
