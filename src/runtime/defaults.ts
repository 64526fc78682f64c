/**
 * The runtime's defaults: what a WorkerPool or a Dispatcher made without a
 * config uses, and what the service's config (src/config/schema.ts) fills
 * its `workers` settings from. Each value lives here once.
 */
export const RUNTIME_DEFAULTS = {
  /** Inboxes one worker pool runs at once. */
  concurrency: 8,
  /** A run longer than this is aborted and its events retried. */
  runTimeoutMs: 60_000,
  /** The safety poll for work; store hints and timers do the real waking. */
  pollIntervalMs: 5_000,
  /** On stop, how long running runs may finish before they are aborted. */
  shutdownGraceMs: 10_000,
  /** On stop, how long the dispatcher's sends in flight may finish (it stops after the runs). */
  dispatcherGraceMs: 5_000,
  /** Inboxes one dispatcher sends to at once. */
  dispatcherConcurrency: 4,
  /** After a channel fails, the wait before that inbox is tried again: doubling from baseMs, at most maxMs. */
  dispatchRetry: { baseMs: 1_000, maxMs: 300_000 },
  /** An approval still open at this share of its life gets one urgent reminder (approval-reminders.ts); null: none. */
  approvalRemindAt: 0.75 as number | null,
} as const;
