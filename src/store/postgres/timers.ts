/** R7: timers live in their own table and feed the inbox; a pass never starts a run. */
import { approvalPayload } from '../approval-payload.js';
import { VigilError } from '../../errors.js';
import type { TimerRecord } from '../rows.js';
import { nextCronTime, planFiring, timerEventKey } from '../schedule.js';
import type { CheckedEvent, CheckedTimer } from '../validate.js';
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

/** Creates or replaces a timer by id; a replaced timer is live again (done = false). */
export async function upsertTimer(tx: InboxTx, timer: CheckedTimer): Promise<void> {
  let due = timer.due;
  if (due === null) {
    due = nextCronTime(timer.cron as string, timer.tz, tx.now);
    if (due === null) throw new VigilError('invalid_timer', `timer ${JSON.stringify(timer.id)}: cron pattern never matches after now`);
  }
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

/**
 * R7: each due timer becomes inbox events and advances in the same
 * transaction, so a second pass at the same instant finds nothing due; the
 * event key (timer id @ scheduled time) turns a replay of the same
 * occurrence into a duplicate. R8: approvals past their deadline with no
 * answer get their `expired` event here too. Returns how many were due.
 */
export async function runScheduler(tx: InboxTx): Promise<number> {
  const { inboxId, now } = tx;
  const due = await tx.rows<TimerRecord>(DUE_TIMERS, [inboxId, now]);
  for (const timer of due) {
    const firing = planFiring(timer, now);
    const base = JSON.parse(timer.payload) as Record<string, unknown>;
    const events: CheckedEvent[] = firing.occurrences.map(({ scheduledFor, skipped }) => {
      const key =
        timer.key_source !== null && timer.key_source_id !== null
          ? { source: timer.key_source, sourceId: timer.key_source_id }
          : timerEventKey(timer.id, scheduledFor);
      return { ...key, payloadJson: JSON.stringify({ ...base, scheduledFor, lateBy: now - scheduledFor, skipped }) };
    });
    await insertEvents(tx, events);
    const lastSkipped = firing.occurrences[firing.occurrences.length - 1]?.skipped ?? 0;
    if (firing.nextDue === null) await tx.run(RETIRE_TIMER, [inboxId, timer.id, lastSkipped]);
    else await tx.run(ADVANCE_TIMER, [inboxId, timer.id, firing.nextDue, lastSkipped]);
  }
  const expired = await tx.rows<{ id: string; action: string; expires_at: number }>(EXPIRED_APPROVALS, [inboxId, now]);
  for (const approval of expired) {
    const payload = approvalPayload(approval.id, 'expired', JSON.parse(approval.action) as unknown, approval.expires_at, now);
    await insertEvents(tx, [{ source: 'approval', sourceId: approval.id, payloadJson: JSON.stringify(payload) }]);
    await tx.run(MARK_EXPIRED, [inboxId, approval.id, now]);
  }
  return due.length + expired.length;
}

export async function removeTimer(tx: InboxTx, id: string): Promise<boolean> {
  return (await tx.run('DELETE FROM timers WHERE inbox_id = $1 AND id = $2', [tx.inboxId, id])) === 1;
}

export const LIST_TIMERS = `
SELECT id, due, every, cron, tz, missed, payload, key_source, key_source_id, done, last_skipped
FROM timers WHERE inbox_id = $1 ORDER BY id`;
