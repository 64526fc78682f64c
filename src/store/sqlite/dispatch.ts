/**
 * R9's SQL on one inbox file: reserve a batch, then record it as sent or
 * release it. What a batch holds is the engine's plan (outbox-batch.ts);
 * the protocol around the send is engine/dispatch.ts.
 */
import type { OutboxFailureReport } from '../contract.js';
import type { PlanDispatch, Reserved } from '../engine/port.js';
import type { DispatchPlan, PacingState } from '../outbox-batch.js';
import type { InboxDb } from './inbox-db.js';
import { readSettings } from './settings.js';

const IN_FLIGHT = `
SELECT 1 FROM outbox WHERE sent_at IS NULL AND reserved_by IS NOT NULL AND reserved_until >= ? LIMIT 1`;

const HELD = 'SELECT id, body, urgent, channel, reserved_by FROM outbox WHERE sent_at IS NULL ORDER BY id';

const READ_PACING = 'SELECT last_paced_at, not_before, day, day_sends FROM outbox_pacing WHERE one = 1';

interface PacingRow {
  last_paced_at: number | null;
  not_before: number | null;
  day: string | null;
  day_sends: number;
}

function writePacing(c: InboxDb, pacing: PacingState, onlyIfLastPacedAt?: number): number {
  const sql = 'UPDATE outbox_pacing SET last_paced_at = @lastPaced, day = @day, day_sends = @daySends WHERE one = 1';
  if (onlyIfLastPacedAt === undefined) return c.stmt(sql).run(pacing).changes;
  return c.stmt(`${sql} AND last_paced_at = @at`).run({ ...pacing, at: onlyIfLastPacedAt }).changes;
}

/** Unless a dispatch is in flight: the held messages to the engine's plan, and its batch reserved (or, at most once, recorded as sent). */
export function reserveBatch(c: InboxDb, plan: PlanDispatch, now: number, atMostOnce: boolean): Reserved | null {
  if (c.stmt(IN_FLIGHT).get(now) !== undefined) return null; // another dispatcher is sending
  const pacing = c.stmt(READ_PACING).get() as PacingRow;
  const held = (c.stmt(HELD).all() as { id: number; body: string; urgent: number; channel: string | null; reserved_by: string | null }[]).map(
    (row) => ({ id: row.id, body: row.body, urgent: row.urgent === 1, channel: row.channel, reservedBefore: row.reserved_by !== null }),
  );
  const settings = readSettings(c);
  const { batch, notBefore } = plan({ held, pacing: { lastPaced: pacing.last_paced_at, day: pacing.day, daySends: pacing.day_sends }, settings, now });
  if (notBefore !== pacing.not_before) c.stmt('UPDATE outbox_pacing SET not_before = ? WHERE one = 1').run(notBefore);
  if (batch === null) return null;
  if (batch.pacing !== null) writePacing(c, batch.pacing.next);
  const ids = JSON.stringify(batch.messages.map((m) => m.id));
  if (atMostOnce) {
    c.stmt(
      'UPDATE outbox SET sent_at = ?, reserved_by = NULL, reserved_until = NULL WHERE id IN (SELECT value FROM json_each(?))',
    ).run(now, ids);
  } else {
    c.stmt('UPDATE outbox SET reserved_by = ?, reserved_until = ? WHERE id IN (SELECT value FROM json_each(?))').run(
      batch.token,
      now + c.options.leaseTtlMs,
      ids,
    );
  }
  return { batch, held: held.length, settings };
}

const RECORD_FAILURE = `
INSERT INTO outbox_failures (message_id, channel, kind, error, failed_at)
SELECT value, @channel, @kind, @error, @now FROM json_each(@ids)`;

/** The send succeeded: the reserved rows are sent, and what a channel did not take is kept. */
export function recordSent(c: InboxDb, plan: DispatchPlan, failures: OutboxFailureReport[], now: number): void {
  c.stmt('UPDATE outbox SET sent_at = ?, reserved_by = NULL, reserved_until = NULL WHERE reserved_by = ? AND sent_at IS NULL').run(
    now,
    plan.token,
  );
  for (const { messageIds, channel, kind, error } of failures) {
    c.stmt(RECORD_FAILURE).run({ ids: JSON.stringify(messageIds), channel, kind, error, now });
  }
}

const OPEN_FAILURES = `
SELECT f.id, f.channel, o.body, o.urgent FROM outbox_failures f JOIN outbox o ON o.id = f.message_id
WHERE f.redriven_at IS NULL AND (@channel IS NULL OR f.channel = @channel) ORDER BY f.id`;

/** Each open failure becomes a held copy for its channel alone; how many. */
export function redriveFailures(c: InboxDb, channel: string | null, now: number): number {
  const open = c.stmt(OPEN_FAILURES).all({ channel }) as { id: number; channel: string; body: string; urgent: number }[];
  for (const failure of open) {
    c.stmt('INSERT INTO outbox (body, urgent, created_at, channel) VALUES (?, ?, ?, ?)').run(failure.body, failure.urgent, now, failure.channel);
    c.stmt('UPDATE outbox_failures SET redriven_at = ? WHERE id = ?').run(now, failure.id);
  }
  return open.length;
}

/**
 * The send threw: the rows are held again and the pacing is given back. If the
 * reservation lapsed and another dispatcher already took the batch over (and
 * sent it), nothing is released, and the gap is not given back either: those
 * messages did go out at the time the gap was taken.
 */
export function releaseBatch(c: InboxDb, plan: DispatchPlan): void {
  const released = c
    .stmt('UPDATE outbox SET reserved_by = NULL, reserved_until = NULL WHERE reserved_by = ? AND sent_at IS NULL')
    .run(plan.token).changes;
  // The pacing given back, a hold this batch's count decided (a daily limit it used up) goes with it.
  if (released > 0 && plan.pacing !== null && writePacing(c, plan.pacing.previous, plan.pacing.at) > 0) {
    c.stmt('UPDATE outbox_pacing SET not_before = NULL WHERE one = 1').run();
  }
}
