/**
 * R9's SQL on one inbox file: reserve a batch, then record it as sent or
 * release it. What a batch holds is the engine's plan (outbox-batch.ts);
 * the protocol around the send is engine/dispatch.ts.
 */
import type { PlanDispatch, Reserved } from '../engine/port.js';
import type { DispatchPlan } from '../outbox-batch.js';
import type { InboxDb } from './inbox-db.js';

const IN_FLIGHT = `
SELECT 1 FROM outbox WHERE sent_at IS NULL AND reserved_by IS NOT NULL AND reserved_until >= ? LIMIT 1`;

const HELD = 'SELECT id, body, urgent, reserved_by FROM outbox WHERE sent_at IS NULL ORDER BY id';

/** Unless a dispatch is in flight: the held messages to the engine's plan, and its batch reserved (or, at most once, recorded as sent). */
export function reserveBatch(c: InboxDb, plan: PlanDispatch, now: number, atMostOnce: boolean): Reserved | null {
  if (c.stmt(IN_FLIGHT).get(now) !== undefined) return null; // another dispatcher is sending
  const lastPaced = c.stmt('SELECT last_paced_at FROM outbox_pacing WHERE one = 1').pluck().get() as number | null;
  const held = (c.stmt(HELD).all() as { id: number; body: string; urgent: number; reserved_by: string | null }[]).map((row) => ({
    id: row.id,
    body: row.body,
    urgent: row.urgent === 1,
    reservedBefore: row.reserved_by !== null,
  }));
  const batch = plan({ held, lastPaced, now });
  if (batch === null) return null;
  if (batch.pacing !== null) c.stmt('UPDATE outbox_pacing SET last_paced_at = ? WHERE one = 1').run(now);
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
  return { batch, held: held.length };
}

/** The send succeeded: the reserved rows are sent. */
export function recordSent(c: InboxDb, plan: DispatchPlan, now: number): void {
  c.stmt('UPDATE outbox SET sent_at = ?, reserved_by = NULL, reserved_until = NULL WHERE reserved_by = ? AND sent_at IS NULL').run(
    now,
    plan.token,
  );
}

/**
 * The send threw: the rows are held again and the gap is given back. If the
 * reservation lapsed and another dispatcher already took the batch over (and
 * sent it), nothing is released, and the gap is not given back either: those
 * messages did go out at the time the gap was taken.
 */
export function releaseBatch(c: InboxDb, plan: DispatchPlan): void {
  const released = c
    .stmt('UPDATE outbox SET reserved_by = NULL, reserved_until = NULL WHERE reserved_by = ? AND sent_at IS NULL')
    .run(plan.token).changes;
  if (released > 0 && plan.pacing !== null) {
    c.stmt('UPDATE outbox_pacing SET last_paced_at = ? WHERE one = 1 AND last_paced_at = ?').run(plan.pacing.previous, plan.pacing.at);
  }
}
