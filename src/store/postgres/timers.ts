/** R7: timers live in their own table and feed the inbox; a pass never starts a run. The plan is the engine's (engine/scheduler.ts). */
import type { DueReminder, ExpiredApproval, PlanFiring } from '../engine/port.js';
import type { CheckedTimer } from '../engine/validate/index.js';
import { toDueTimer, type TimerRecord } from '../rows.js';
import type { InboxTx } from './inbox-tx.js';
import { insertEvents } from './ingest.js';

const UPSERT_TIMER = `
INSERT INTO timers AS t (inbox_id, id, due, every, cron, tz, missed, payload, key_source, key_source_id, done, last_skipped)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false, NULL)
ON CONFLICT (inbox_id, id) DO UPDATE SET
  due = excluded.due, every = excluded.every, cron = excluded.cron, tz = excluded.tz,
  missed = excluded.missed, payload = excluded.payload, key_source = excluded.key_source,
  key_source_id = excluded.key_source_id, done = false, last_skipped = NULL`;

const DUE_TIMERS = `
SELECT id, due, every, cron, tz, missed, payload, key_source, key_source_id
FROM timers WHERE inbox_id = $1 AND NOT done AND due <= $2 ORDER BY due, id`;

const ADVANCE_TIMER = 'UPDATE timers SET due = $3, last_skipped = $4 WHERE inbox_id = $1 AND id = $2';
const RETIRE_TIMER = 'UPDATE timers SET done = true, last_skipped = $3 WHERE inbox_id = $1 AND id = $2';

const EXPIRED_APPROVALS = `
SELECT id, action, expires_at FROM approvals
WHERE inbox_id = $1 AND answer IS NULL AND expires_at <= $2 ORDER BY expires_at, id`;

const MARK_EXPIRED = `
UPDATE approvals SET answer = 'expired', answered_at = $3 WHERE inbox_id = $1 AND id = $2 AND answer IS NULL`;

// Open, not reminded, due, and not yet past the deadline (approvals_remind).
const DUE_REMINDERS = `
SELECT id, action, expires_at, remind_at FROM approvals
WHERE inbox_id = $1 AND answer IS NULL AND reminded_at IS NULL AND remind_at IS NOT NULL AND remind_at <= $2 AND expires_at > $2
ORDER BY remind_at, id`;

const MARK_REMINDED = 'UPDATE approvals SET reminded_at = $3 WHERE inbox_id = $1 AND id = $2 AND reminded_at IS NULL';

/** Creates or replaces a timer by id; a replaced timer is live again (done = false). */
export async function upsertTimer(tx: InboxTx, timer: CheckedTimer, due: number): Promise<void> {
  await tx.run(UPSERT_TIMER, [
    tx.inboxId,
    timer.id,
    due,
    timer.every,
    timer.cron,
    timer.tz,
    timer.missed,
    timer.payloadJson,
    timer.key?.source ?? null,
    timer.key?.sourceId ?? null,
  ]);
}

/** R7 and R8's expiries: the due rows in, the engine's plan applied, in the caller's transaction. */
export async function fireTimers(tx: InboxTx, plan: PlanFiring): Promise<void> {
  const { inboxId, now } = tx;
  const due = (await tx.rows<TimerRecord>(DUE_TIMERS, [inboxId, now])).map(toDueTimer);
  const expired: ExpiredApproval[] = (await tx.rows<{ id: string; action: string; expires_at: number }>(EXPIRED_APPROVALS, [inboxId, now])).map(
    (row) => ({ id: row.id, actionJson: row.action, expiresAt: row.expires_at }),
  );
  const reminders: DueReminder[] = (
    await tx.rows<{ id: string; action: string; expires_at: number; remind_at: number }>(DUE_REMINDERS, [inboxId, now])
  ).map((row) => ({ id: row.id, actionJson: row.action, expiresAt: row.expires_at, remindAt: row.remind_at }));
  const firing = plan(due, expired, now, reminders);
  await insertEvents(tx, firing.events);
  for (const timer of firing.timers) {
    if (timer.nextDue === null) await tx.run(RETIRE_TIMER, [inboxId, timer.id, timer.lastSkipped]);
    else await tx.run(ADVANCE_TIMER, [inboxId, timer.id, timer.nextDue, timer.lastSkipped]);
  }
  for (const id of firing.expiredApprovals) await tx.run(MARK_EXPIRED, [inboxId, id, now]);
  for (const id of firing.remindedApprovals) await tx.run(MARK_REMINDED, [inboxId, id, now]);
}

export async function removeTimer(tx: InboxTx, id: string): Promise<boolean> {
  return (await tx.run('DELETE FROM timers WHERE inbox_id = $1 AND id = $2', [tx.inboxId, id])) === 1;
}

export const LIST_TIMERS = `
SELECT id, due, every, cron, tz, missed, payload, key_source, key_source_id, done, last_skipped
FROM timers WHERE inbox_id = $1 ORDER BY id`;
