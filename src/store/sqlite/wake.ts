/**
 * When an inbox next needs a worker or a dispatcher, derived from its rows
 * inside the same transaction that changed them. This is what the ready
 * index stores (see ready-index.ts), with the inbox's dead events counted
 * for the dashboard (one more walk of the status index, over dead rows only).
 */
import type { Statement } from 'better-sqlite3';
import type { ResolvedOptions } from '../options.js';
import type { Wake } from './ready-index.js';

/** What the rule reads through: an inbox file's connection (inbox-db.ts) and the store's options. */
export interface WakeSource {
  readonly options: Pick<ResolvedOptions, 'retryBackoff' | 'maxAttempts' | 'outboxGapMs'>;
  stmt(sql: string): Statement;
}

// Each part reads a partial index or a handful of pending rows: the cost
// follows the work in the inbox, not its history.
export const WAKE_SQL = `
SELECT
  (SELECT received_at FROM events WHERE status = 'pending' AND attempts = 0 ORDER BY id LIMIT 1) AS fresh,
  (SELECT received_at FROM events WHERE status = 'pending' AND attempts = 0 ORDER BY id DESC LIMIT 1) AS newest,
  (SELECT min(CASE WHEN attempts >= @maxAttempts THEN 0
                   ELSE last_claim_at + min(@baseMs * (1 << min(attempts - 1, 40)), @maxMs) END)
     FROM events WHERE status = 'pending' AND attempts > 0) AS retry,
  (SELECT until + 1 FROM lease WHERE EXISTS (SELECT 1 FROM events WHERE status = 'running')) AS stalled,
  (SELECT until FROM lease) AS lease_until,
  (SELECT min(due) FROM timers WHERE done = 0) AS timer,
  (SELECT min(expires_at) FROM approvals WHERE answer IS NULL) AS approval,
  (SELECT min(remind_at) FROM approvals WHERE answer IS NULL AND reminded_at IS NULL AND remind_at IS NOT NULL) AS reminder,
  (SELECT min(created_at) FROM outbox WHERE sent_at IS NULL AND urgent = 1) AS urgent,
  (SELECT min(created_at) FROM outbox WHERE sent_at IS NULL AND urgent = 0) AS paced,
  (SELECT until + 1 FROM outbox_reservation) AS inflight,
  (SELECT last_paced_at FROM outbox_pacing) AS last_paced,
  (SELECT not_before FROM outbox_pacing) AS not_before,
  (SELECT gap_ms FROM settings) AS gap_ms,
  (SELECT debounce_ms FROM settings) AS debounce_ms,
  (SELECT max_wait_ms FROM settings) AS max_wait_ms,
  (SELECT count(*) FROM events WHERE status = 'dead') AS dead,
  (SELECT paused_until FROM spend_pause) AS paused_until`;

interface WakeRow {
  fresh: number | null;
  newest: number | null;
  retry: number | null;
  stalled: number | null;
  lease_until: number | null;
  timer: number | null;
  approval: number | null;
  reminder: number | null;
  urgent: number | null;
  paced: number | null;
  inflight: number | null;
  last_paced: number | null;
  not_before: number | null;
  gap_ms: number | null;
  debounce_ms: number | null;
  max_wait_ms: number | null;
  dead: number;
  paused_until: number | null;
}

export function computeWake(c: WakeSource, now: number): Wake {
  const { retryBackoff, maxAttempts, outboxGapMs } = c.options;
  const row = c.stmt(WAKE_SQL).get({ maxAttempts, baseMs: retryBackoff.baseMs, maxMs: retryBackoff.maxMs }) as WakeRow;

  // A debounced inbox (settings wake.debounceMs) is ready once its newest
  // fresh event is debounceMs old, or its oldest is maxWaitMs old: a burst is one run.
  const fresh =
    row.fresh === null || row.debounce_ms === null ? row.fresh : Math.min(row.newest! + row.debounce_ms, row.fresh + row.max_wait_ms!);
  // Events wait for a worker; while a lease is live only its holder may claim,
  // and it claims again before it releases, so the inbox is not listed until then.
  let wakeAt = min(fresh, row.retry, row.stalled);
  // Paused for spend (engine/budget.ts): events wait for the pause's end; timers still fire.
  if (wakeAt !== null && row.paused_until !== null && row.paused_until > now) wakeAt = Math.max(wakeAt, row.paused_until);
  if (wakeAt !== null && row.lease_until !== null && row.lease_until >= now) {
    wakeAt = Math.max(wakeAt, row.lease_until + 1);
  }
  // Timers and approvals (deadlines and reminders) need no lease: the scheduler fires them.
  wakeAt = min(wakeAt, row.timer, row.approval, row.reminder);

  // A dispatch in flight blocks the next one until it is recorded or expires.
  let sendAt: number | null;
  if (row.inflight !== null) {
    sendAt = row.inflight;
  } else {
    // Paced messages wait for the gap (the inbox's own, else the store's) and for quiet hours or a used-up daily limit (not_before).
    const gap = row.gap_ms ?? outboxGapMs;
    const pacedAt =
      row.paced === null ? null : Math.max(row.paced, row.last_paced === null ? row.paced : row.last_paced + gap, row.not_before ?? row.paced);
    sendAt = min(row.urgent, pacedAt);
  }
  return { wakeAt, sendAt, dead: row.dead };
}

function min(...values: (number | null)[]): number | null {
  let result: number | null = null;
  for (const value of values) {
    if (value !== null && (result === null || value < result)) result = value;
  }
  return result;
}
