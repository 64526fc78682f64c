/**
 * R9's SQL on one inbox file: reserve a batch, then record it as sent or
 * release it. What a batch holds is the engine's plan (outbox-batch.ts);
 * the protocol around the send is engine/dispatch.ts.
 */
import type { OutboxFailureReport } from '../contract.js';
import type { PlanDispatch, Reserved, StoredProgress } from '../engine/port.js';
import type { DispatchPlan, HeldRow, PacingState } from '../outbox-batch.js';
import type { InboxDb } from './inbox-db.js';
import { readSettings } from './settings.js';

/** The batch in flight, or one whose reservation lapsed (its messages go again at once). */
const RESERVATION = 'SELECT token, until, first_id, last_id, ids FROM outbox_reservation WHERE one = 1';

// In id order from the oldest held message: what is held is nearly always the newest rows, so
// this walks few sent ones, and reads no index entry per row (outbox_held gives only where to start).
const HELD = `
SELECT id, body, urgent, channel FROM outbox
WHERE id >= (SELECT min(id) FROM outbox INDEXED BY outbox_held WHERE sent_at IS NULL) AND sent_at IS NULL
ORDER BY id`;

const READ_PACING = 'SELECT last_paced_at, not_before, day, day_sends FROM outbox_pacing WHERE one = 1';

const READ_PROGRESS = 'SELECT batch, progress AS json FROM outbox_progress WHERE one = 1';

interface PacingRow {
  last_paced_at: number | null;
  not_before: number | null;
  day: string | null;
  day_sends: number;
}

interface ReservationRow {
  token: string;
  until: number;
  first_id: number;
  last_id: number;
  ids: string | null;
}

function writePacing(c: InboxDb, pacing: PacingState, onlyIfLastPacedAt?: number): number {
  const sql = 'UPDATE outbox_pacing SET last_paced_at = @lastPaced, day = @day, day_sends = @daySends WHERE one = 1';
  if (onlyIfLastPacedAt === undefined) return c.stmt(sql).run(pacing).changes;
  return c.stmt(`${sql} AND last_paced_at = @at`).run({ ...pacing, at: onlyIfLastPacedAt }).changes;
}

/** Which held messages a reservation names: its range, or its list. */
function reservedIds(reservation: ReservationRow | undefined): (id: number) => boolean {
  if (reservation === undefined) return () => false;
  if (reservation.ids === null) return (id) => id >= reservation.first_id && id <= reservation.last_id;
  const ids = new Set(JSON.parse(reservation.ids) as number[]);
  return (id) => ids.has(id);
}

/**
 * How a batch is named: a range when it is every held message between its
 * first and last id (then `ids` is null), its id list otherwise. `held` and
 * `batch` are in id order, the batch a subsequence of what is held.
 */
function nameBatch(held: HeldRow[], batch: { id: number }[]): { first: number; last: number; ids: string | null } {
  const first = batch[0]!.id;
  const last = batch[batch.length - 1]!.id;
  let start = 0;
  while (held[start]!.id !== first) start++;
  const whole = held[start + batch.length - 1]?.id === last;
  return { first, last, ids: whole ? null : JSON.stringify(batch.map((m) => m.id)) };
}

/** Records the named batch as sent at `now`, each message once. */
function markSent(c: InboxDb, named: { first: number; last: number; ids: string | null }, now: number): void {
  if (named.ids === null) {
    c.stmt('UPDATE outbox SET sent_at = ? WHERE sent_at IS NULL AND id BETWEEN ? AND ?').run(now, named.first, named.last);
  } else {
    c.stmt('UPDATE outbox SET sent_at = ? WHERE sent_at IS NULL AND id IN (SELECT value FROM json_each(?))').run(now, named.ids);
  }
}

/** Unless a dispatch is in flight: the held messages to the engine's plan, and its batch reserved (or, at most once, recorded as sent). */
export function reserveBatch(c: InboxDb, plan: PlanDispatch, now: number, atMostOnce: boolean): Reserved | null {
  const reservation = c.stmt(RESERVATION).get() as ReservationRow | undefined;
  if (reservation !== undefined && reservation.until >= now) return null; // another dispatcher is sending
  const lapsed = reservedIds(reservation);
  // Arrays, not objects: a dispatch may read 10,000 rows, and better-sqlite3 builds arrays faster.
  const rows = c.stmt(HELD).raw().all() as [number, string, number, string | null][];
  const held: HeldRow[] = rows.map(([id, body, urgent, channel]) => ({ id, body, urgent: urgent === 1, channel, reservedBefore: lapsed(id) }));
  const pacing = c.stmt(READ_PACING).get() as PacingRow;
  const settings = readSettings(c);
  const { batch, notBefore } = plan({ held, pacing: { lastPaced: pacing.last_paced_at, day: pacing.day, daySends: pacing.day_sends }, settings, now });
  if (notBefore !== pacing.not_before) c.stmt('UPDATE outbox_pacing SET not_before = ? WHERE one = 1').run(notBefore);
  if (batch === null) {
    // A lapsed reservation with nothing of it still held would list the inbox as due forever.
    if (reservation !== undefined) c.stmt('DELETE FROM outbox_reservation').run();
    return null;
  }
  if (batch.pacing !== null) writePacing(c, batch.pacing.next);
  const named = nameBatch(held, batch.messages);
  if (atMostOnce) {
    markSent(c, named, now);
    // A lapsed reservation's messages were all in this batch (they go at once): it is done with.
    c.stmt('DELETE FROM outbox_reservation').run();
  } else {
    c.stmt(
      `INSERT INTO outbox_reservation (one, token, until, first_id, last_id, ids) VALUES (1, ?, ?, ?, ?, ?)
       ON CONFLICT (one) DO UPDATE SET token = excluded.token, until = excluded.until,
         first_id = excluded.first_id, last_id = excluded.last_id, ids = excluded.ids`,
    ).run(batch.token, now + c.options.leaseTtlMs, named.first, named.last, named.ids);
  }
  const progress = atMostOnce ? null : ((c.stmt(READ_PROGRESS).get() as StoredProgress | undefined) ?? null);
  return { batch, held: held.length, settings, progress };
}

/** Replaces the recorded progress of the batch in flight. */
export function recordProgress(c: InboxDb, progress: StoredProgress): void {
  c.stmt(
    `INSERT INTO outbox_progress (one, batch, progress) VALUES (1, @batch, @json)
     ON CONFLICT (one) DO UPDATE SET batch = excluded.batch, progress = excluded.progress`,
  ).run(progress);
}

const RECORD_FAILURE = `
INSERT INTO outbox_failures (message_id, channel, kind, error, failed_at)
SELECT value, @channel, @kind, @error, @now FROM json_each(@ids)`;

/**
 * The send succeeded: the reserved messages are sent, and what a channel
 * did not take is kept. If the reservation lapsed and another dispatcher
 * took the batch over meanwhile, it records them when its own send is done.
 */
export function recordSent(c: InboxDb, plan: DispatchPlan, failures: OutboxFailureReport[], now: number): void {
  const reservation = c.stmt(RESERVATION).get() as ReservationRow | undefined;
  if (reservation?.token === plan.token) {
    markSent(c, { first: reservation.first_id, last: reservation.last_id, ids: reservation.ids }, now);
    c.stmt('DELETE FROM outbox_reservation').run();
    c.stmt('DELETE FROM outbox_progress').run();
  }
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

/** The open failures of `channel` (null: all) deleted: their messages go nowhere more; how many. */
export function dropFailures(c: InboxDb, channel: string | null): number {
  return c.stmt('DELETE FROM outbox_failures WHERE redriven_at IS NULL AND (@channel IS NULL OR channel = @channel)').run({ channel }).changes;
}

/**
 * The send threw: the rows are held again and the pacing is given back. If the
 * reservation lapsed and another dispatcher already took the batch over (and
 * sent it), nothing is released, and the gap is not given back either: those
 * messages did go out at the time the gap was taken.
 */
export function releaseBatch(c: InboxDb, plan: DispatchPlan): void {
  const released = c.stmt('DELETE FROM outbox_reservation WHERE token = ?').run(plan.token).changes;
  // The pacing given back, a hold this batch's count decided (a daily limit it used up) goes with it.
  if (released > 0 && plan.pacing !== null && writePacing(c, plan.pacing.previous, plan.pacing.at) > 0) {
    c.stmt('UPDATE outbox_pacing SET not_before = NULL WHERE one = 1').run();
  }
}
