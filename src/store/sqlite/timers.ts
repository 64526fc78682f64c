/** R7: timers live in their own table and feed the inbox; a pass never starts a run. */
import { VigilError } from '../../errors.js';
import type { TimerRow } from '../contract.js';
import { toTimerRow, type ListedTimerRecord, type TimerRecord } from '../rows.js';
import { approvalPayload } from '../approval-payload.js';
import { nextCronTime, planFiring, timerEventKey } from '../schedule.js';
import type { CheckedTimer } from '../validate.js';
import type { InboxDb } from './inbox-db.js';
import { insertEvent } from './ingest.js';

const UPSERT_TIMER = `
INSERT INTO timers (id, due, every, cron, tz, missed, payload, key_source, key_source_id, done, last_skipped)
VALUES (@id, @due, @every, @cron, @tz, @missed, @payload, @keySource, @keySourceId, 0, NULL)
ON CONFLICT (id) DO UPDATE SET
  due = excluded.due, every = excluded.every, cron = excluded.cron, tz = excluded.tz,
  missed = excluded.missed, payload = excluded.payload, key_source = excluded.key_source,
  key_source_id = excluded.key_source_id, done = 0, last_skipped = NULL`;

const DUE_TIMERS = `
SELECT id, due, every, cron, tz, missed, payload, key_source, key_source_id
FROM timers WHERE done = 0 AND due <= ? ORDER BY due, id`;

const ADVANCE_TIMER = 'UPDATE timers SET due = ?, last_skipped = ? WHERE id = ?';
const RETIRE_TIMER = 'UPDATE timers SET done = 1, last_skipped = ? WHERE id = ?';

const EXPIRED_APPROVALS = `
SELECT id, action, expires_at FROM approvals WHERE answer IS NULL AND expires_at <= ? ORDER BY expires_at, id`;

/** Creates or replaces a timer by id; a replaced timer is live again (done = 0). */
export function neverMatches(id: string): VigilError {
  return new VigilError('invalid_timer', `timer ${JSON.stringify(id)}: cron pattern never matches after now`);
}

export function upsertTimer(c: InboxDb, timer: CheckedTimer, now: number): void {
  let due = timer.due;
  if (due === null) {
    due = nextCronTime(timer.cron as string, timer.tz, now);
    if (due === null) throw neverMatches(timer.id);
  }
  c.stmt(UPSERT_TIMER).run({
    id: timer.id,
    due,
    every: timer.every,
    cron: timer.cron,
    tz: timer.tz,
    missed: timer.missed,
    payload: timer.payloadJson,
    keySource: timer.key?.source ?? null,
    keySourceId: timer.key?.sourceId ?? null,
  });
}

/**
 * R7: each due timer becomes inbox events and advances in the same
 * transaction, so a second pass at the same instant finds nothing due; the
 * event key (timer id @ scheduled time) turns a replay of the same
 * occurrence into a duplicate. R8: approvals past their deadline with no
 * answer get their `expired` event here too. Returns how many were due.
 */
export function runScheduler(c: InboxDb, now: number): number {
  const due = c.stmt(DUE_TIMERS).all(now) as TimerRecord[];
  for (const timer of due) {
    const firing = planFiring(timer, now);
    const base = JSON.parse(timer.payload) as Record<string, unknown>;
    for (const { scheduledFor, skipped } of firing.occurrences) {
      const key =
        timer.key_source !== null && timer.key_source_id !== null
          ? { source: timer.key_source, sourceId: timer.key_source_id }
          : timerEventKey(timer.id, scheduledFor);
      const payload = { ...base, scheduledFor, lateBy: now - scheduledFor, skipped };
      insertEvent(c, { ...key, payloadJson: JSON.stringify(payload) }, now);
    }
    const lastSkipped = firing.occurrences[firing.occurrences.length - 1]?.skipped ?? 0;
    if (firing.nextDue === null) c.stmt(RETIRE_TIMER).run(lastSkipped, timer.id);
    else c.stmt(ADVANCE_TIMER).run(firing.nextDue, lastSkipped, timer.id);
  }
  const expired = c.stmt(EXPIRED_APPROVALS).all(now) as { id: string; action: string; expires_at: number }[];
  for (const approval of expired) {
    const payload = approvalPayload(approval.id, 'expired', JSON.parse(approval.action) as unknown, approval.expires_at, now);
    insertEvent(c, { source: 'approval', sourceId: approval.id, payloadJson: JSON.stringify(payload) }, now);
    c.stmt("UPDATE approvals SET answer = 'expired', answered_at = ? WHERE id = ?").run(now, approval.id);
  }
  return due.length + expired.length;
}

export function removeTimer(c: InboxDb, id: string): boolean {
  return c.stmt('DELETE FROM timers WHERE id = ?').run(id).changes === 1;
}

export function listTimers(c: InboxDb): TimerRow[] {
  return (c.stmt('SELECT * FROM timers ORDER BY id').all() as ListedTimerRecord[]).map(toTimerRow);
}
