import { systemClock, type Clock } from '../clock.js';
import { VigilError } from '../errors.js';
import type { InboxBudget, RetentionOptions, StoreOptions } from './contract.js';
import { validateBudget } from './engine/validate/budget.js';
import { MAX_BYTES, MAX_COUNT, MAX_DURATION_MS, MAX_TIMER_DELAY_MS } from './engine/validate/bounds.js';

/** Store options with every default filled in and every value checked. */
export interface ResolvedOptions {
  /** The application clock; `database` means the server's clock decides leases (R13). */
  clock: Clock | 'database';
  leaseTtlMs: number;
  maxAttempts: number;
  outboxGapMs: number;
  retryBackoff: { baseMs: number; maxMs: number };
  batchLimit: number;
  maxPayloadBytes: number;
  maxOpenInboxes: number;
  busyTimeoutMs: number;
  synchronous: 'full' | 'normal';
  /** Each kind's retention in ms; null keeps that kind forever. */
  retention: Retention;
  writerThread: boolean;
  /** The default budget of every inbox (engine/budget.ts); null: none. */
  budget: InboxBudget | null;
}

export type Retention = { [K in keyof RetentionOptions]-?: number | null };

const RETENTION_KINDS = ['doneEventsMs', 'deadEventsMs', 'sentMessagesMs', 'answeredApprovalsMs', 'actionsMs', 'settledEffectsMs', 'usageMs'] as const;

/** retention.usageMs unless set: 400 days, a year's months and their neighbours, and usage is never kept forever by default. */
export const USAGE_RETENTION_MS = 400 * 86_400_000;

export const STORE_DEFAULTS = {
  leaseTtlMs: 120_000,
  maxAttempts: 3,
  outboxGapMs: 3_600_000,
  retryBackoff: { baseMs: 1_000, maxMs: 600_000 },
  batchLimit: 100,
  maxPayloadBytes: 1_048_576,
  maxOpenInboxes: 128,
  busyTimeoutMs: 5_000,
} as const;

/**
 * The quotas `vigil serve` gives each inbox (contract/limits.ts), unless
 * the config or the inbox's own settings say otherwise. Why these:
 * - 10,000 pending events: an agent that keeps up holds a handful; ten
 *   thousand is days of a busy integration's deliveries with the agent down,
 *   and still a claim and a listing that stay fast.
 * - 64 MiB pending: 64 events of the largest payload (maxPayloadBytes,
 *   1 MiB), so one user's backlog can take at most that much of a disk
 *   shared by all, yet a day's ordinary deliveries (a few KiB each) fit.
 * - 600 events a minute: ten a second, sustained, for one person's agent,
 *   far above what a person's integrations send, far below what fills a
 *   disk; a burst of a provider's redeliveries gets 429 and comes again.
 */
export const LIMIT_DEFAULTS = {
  pendingEventsPerInbox: 10_000,
  pendingBytesPerInbox: 64 * 1_048_576,
  eventsPerMinutePerInbox: 600,
} as const;

export function resolveOptions(options: StoreOptions = {}, defaultClock: Clock | 'database' = systemClock): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new VigilError('invalid_options', 'store options must be an object');
  }
  const clock = options.clock ?? defaultClock;
  if (typeof clock !== 'function' && clock !== 'database') {
    throw new VigilError('invalid_options', "clock must be a function returning milliseconds (or 'database' for PostgreSQL)");
  }
  const backoff = options.retryBackoff ?? {};
  const baseMs = int('retryBackoff.baseMs', backoff.baseMs ?? STORE_DEFAULTS.retryBackoff.baseMs, 0, MAX_DURATION_MS);
  const maxMs = int('retryBackoff.maxMs', backoff.maxMs ?? Math.max(STORE_DEFAULTS.retryBackoff.maxMs, baseMs), 0, MAX_DURATION_MS);
  if (maxMs < baseMs) {
    throw new VigilError('invalid_options', `retryBackoff.maxMs (${maxMs}) must not be below retryBackoff.baseMs (${baseMs})`);
  }
  const synchronous = options.synchronous ?? 'full';
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new VigilError('invalid_options', "synchronous must be 'full' or 'normal'");
  }
  return {
    clock,
    // Waited out by Node timers (the heartbeat at a third, a send's deadline at a quarter): bounds.ts.
    leaseTtlMs: int('leaseTtlMs', options.leaseTtlMs ?? STORE_DEFAULTS.leaseTtlMs, 1, MAX_TIMER_DELAY_MS),
    maxAttempts: int('maxAttempts', options.maxAttempts ?? STORE_DEFAULTS.maxAttempts, 1, MAX_COUNT),
    outboxGapMs: int('outboxGapMs', options.outboxGapMs ?? STORE_DEFAULTS.outboxGapMs, 0, MAX_DURATION_MS),
    retryBackoff: { baseMs, maxMs },
    batchLimit: int('batchLimit', options.batchLimit ?? STORE_DEFAULTS.batchLimit, 1, MAX_COUNT),
    maxPayloadBytes: int('maxPayloadBytes', options.maxPayloadBytes ?? STORE_DEFAULTS.maxPayloadBytes, 1, MAX_BYTES),
    maxOpenInboxes: int('maxOpenInboxes', options.maxOpenInboxes ?? STORE_DEFAULTS.maxOpenInboxes, 1, MAX_COUNT),
    // SQLite's busy handler takes at most 2^31-1 ms (better-sqlite3 refuses more).
    busyTimeoutMs: int('busyTimeoutMs', options.busyTimeoutMs ?? STORE_DEFAULTS.busyTimeoutMs, 0, MAX_TIMER_DELAY_MS),
    synchronous,
    retention: resolveRetention(options.retention),
    writerThread: bool('writerThread', options.writerThread ?? false),
    budget: options.budget === undefined ? null : validateBudget(options.budget, 'invalid_options', 'budget'),
  };
}

function resolveRetention(retention: unknown): Retention {
  if (retention !== undefined && (typeof retention !== 'object' || retention === null || Array.isArray(retention))) {
    throw new VigilError('invalid_options', `retention must be an object such as { doneEventsMs: 604800000 }, got ${JSON.stringify(retention)}`);
  }
  const given = (retention ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(given).find((key) => !(RETENTION_KINDS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    throw new VigilError('invalid_options', `retention.${unknown} is not a retention (known: ${RETENTION_KINDS.join(', ')})`);
  }
  const resolved = {} as Retention;
  for (const kind of RETENTION_KINDS) {
    resolved[kind] = given[kind] === undefined ? null : int(`retention.${kind}`, given[kind], 0, MAX_DURATION_MS);
  }
  resolved.usageMs ??= USAGE_RETENTION_MS;
  return resolved;
}

function bool(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new VigilError('invalid_options', `${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

/** A whole number from `min` to `max` (the bound of its kind, engine/validate/bounds.ts). */
function int(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new VigilError('invalid_options', `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`, { field: name });
  }
  return value;
}

/**
 * R4's backoff: how long a retried event waits after its last claim.
 * Exact (no jitter) so the rule is testable to the millisecond.
 */
export function backoffMs(attempts: number, backoff: { baseMs: number; maxMs: number }): number {
  const exponent = Math.min(Math.max(attempts - 1, 0), 40);
  return Math.min(backoff.baseMs * 2 ** exponent, backoff.maxMs);
}
