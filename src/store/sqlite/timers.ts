/** R7: timers live in their own table and feed the inbox; a pass never starts a run. The plan is the engine's (engine/scheduler.ts). */
import type { TimerRow } from '../contract.js';
import type { DueReminder, DueTimer, ExpiredApproval, PlanFiring } from '../engine/port.js';
import type { CheckedTimer } from '../engine/validate/index.js';
import { toDueTimer, toTimerRow, type ListedTimerRecord, type TimerRecord } from '../rows.js';
import type { InboxDb } from './inbox-db.js';
import { insertEvents } from './ingest.js';

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

const MARK_EXPIRED = "UPDATE approvals SET answer = 'expired', answered_at = ? WHERE id = ? AND answer IS NULL";

// Open, not reminded, due, and not yet past the deadline (approvals_remind).
const DUE_REMINDERS = `
SELECT id, action, expires_at, remind_at FROM approvals
WHERE answer IS NULL AND reminded_at IS NULL AND remind_at IS NOT NULL AND remind_at <= @now AND expires_at > @now
ORDER BY remind_at, id`;

const MARK_REMINDED = 'UPDATE approvals SET reminded_at = ? WHERE id = ? AND reminded_at IS NULL';

/** Creates or replaces a timer by id; a replaced timer is live again (done = 0). */
export function upsertTimer(c: InboxDb, timer: CheckedTimer, due: number): void {
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

/** R7 and R8's expiries: the due rows in, the engine's plan applied, in the caller's transaction. */
export function fireTimers(c: InboxDb, plan: PlanFiring, now: number): void {
  // Arrays, not objects: a pass may read 1,000 due timers, and better-sqlite3 builds arrays faster.
  const rows = c.stmt(DUE_TIMERS).raw().all(now) as [string, number, number | null, string | null, string | null, TimerRecord['missed'], string, string | null, string | null][];
  const due: DueTimer[] = rows.map(([id, at, every, cron, tz, missed, payload, keySource, keySourceId]) =>
    toDueTimer({ id, due: at, every, cron, tz, missed, payload, key_source: keySource, key_source_id: keySourceId }),
  );
  const expired: ExpiredApproval[] = (c.stmt(EXPIRED_APPROVALS).all(now) as { id: string; action: string; expires_at: number }[]).map(
    (row) => ({ id: row.id, actionJson: row.action, expiresAt: row.expires_at }),
  );
  const reminders: DueReminder[] = (c.stmt(DUE_REMINDERS).all({ now }) as { id: string; action: string; expires_at: number; remind_at: number }[]).map(
    (row) => ({ id: row.id, actionJson: row.action, expiresAt: row.expires_at, remindAt: row.remind_at }),
  );
  const firing = plan(due, expired, now, reminders);
  insertEvents(c, firing.events, now);
  for (const timer of firing.timers) {
    if (timer.nextDue === null) c.stmt(RETIRE_TIMER).run(timer.lastSkipped, timer.id);
    else c.stmt(ADVANCE_TIMER).run(timer.nextDue, timer.lastSkipped, timer.id);
  }
  for (const id of firing.expiredApprovals) c.stmt(MARK_EXPIRED).run(now, id);
  for (const id of firing.remindedApprovals) c.stmt(MARK_REMINDED).run(now, id);
}

export function removeTimer(c: InboxDb, id: string): boolean {
  return c.stmt('DELETE FROM timers WHERE id = ?').run(id).changes === 1;
}

export function listTimers(c: InboxDb): TimerRow[] {
  return (c.stmt('SELECT * FROM timers ORDER BY id').all() as ListedTimerRecord[]).map(toTimerRow);
}
