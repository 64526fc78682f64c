/**
 * R9's SQL on one inbox's rows: reserve a batch, then record it as sent or
 * release it. What a batch holds is the engine's plan (outbox-batch.ts);
 * the protocol around the send is engine/dispatch.ts.
 */
import type { OutboxFailureReport } from '../contract.js';
import type { PlanDispatch, Reserved, StoredProgress } from '../engine/port.js';
import type { DispatchPlan } from '../outbox-batch.js';
import type { InboxTx } from './inbox-tx.js';
import type { InboxSettings } from '../contract.js';

const IN_FLIGHT = `
SELECT 1 FROM outbox
WHERE inbox_id = $1 AND sent_at IS NULL AND reserved_by IS NOT NULL AND reserved_until >= $2 LIMIT 1`;

const HELD = 'SELECT id, body, urgent, channel, reserved_by FROM outbox WHERE inbox_id = $1 AND sent_at IS NULL ORDER BY id';

const SET_PACING = 'UPDATE inboxes SET last_paced_at = $2, pacing_day = $3, day_sends = $4 WHERE inbox_id = $1';
const SET_NOT_BEFORE = 'UPDATE inboxes SET not_before = $2 WHERE inbox_id = $1';


const MARK_SENT_NOW = `
UPDATE outbox SET sent_at = $2, reserved_by = NULL, reserved_until = NULL
WHERE inbox_id = $1 AND id = ANY($3::bigint[]) AND sent_at IS NULL`;

const RESERVE = `
UPDATE outbox SET reserved_by = $2, reserved_until = $3
WHERE inbox_id = $1 AND id = ANY($4::bigint[]) AND sent_at IS NULL`;

// Fenced on the token: a reservation that expired and was taken over is not ours to record.
// The batch's progress goes in the same statement: no round trip more for a send.
const RECORD_SENT = `
WITH cleared AS (DELETE FROM outbox_progress WHERE inbox_id = $1)
UPDATE outbox SET sent_at = $3, reserved_by = NULL, reserved_until = NULL
WHERE inbox_id = $1 AND reserved_by = $2 AND sent_at IS NULL`;

// The settings and the progress of the batch in flight in one round trip: a dispatch's reads are its cost.
const SETTINGS_AND_PROGRESS = `
SELECT (SELECT json FROM inbox_settings WHERE inbox_id = $1) AS settings,
       p.batch, p.progress
FROM (SELECT 1) AS one LEFT JOIN outbox_progress p ON p.inbox_id = $1`;

const RECORD_PROGRESS = `
INSERT INTO outbox_progress (inbox_id, batch, progress) VALUES ($1, $2, $3)
ON CONFLICT (inbox_id) DO UPDATE SET batch = excluded.batch, progress = excluded.progress`;

const UNRESERVE = `
UPDATE outbox SET reserved_by = NULL, reserved_until = NULL
WHERE inbox_id = $1 AND reserved_by = $2 AND sent_at IS NULL`;

// Gives the pacing back only if no later batch has counted against it since; a hold this batch's count decided goes with it.
const RESTORE_PACING = `
UPDATE inboxes SET last_paced_at = $2, pacing_day = $3, day_sends = $4, not_before = NULL
WHERE inbox_id = $1 AND last_paced_at = $5`;

interface HeldRecord {
  id: number;
  body: string;
  urgent: boolean;
  channel: string | null;
  reserved_by: string | null;
}

const RECORD_FAILURE = `
INSERT INTO outbox_failures (inbox_id, message_id, channel, kind, error, failed_at)
SELECT $1, id, $3, $4, $5, $6 FROM unnest($2::bigint[]) AS id`;

const OPEN_FAILURES = `
SELECT f.id, f.channel, o.body, o.urgent FROM outbox_failures f JOIN outbox o ON o.id = f.message_id
WHERE f.inbox_id = $1 AND f.redriven_at IS NULL AND ($2::text IS NULL OR f.channel = $2) ORDER BY f.id`;

/** Unless a dispatch is in flight: the held messages to the engine's plan, and its batch reserved (or, at most once, recorded as sent). */
export async function reserveBatch(tx: InboxTx, plan: PlanDispatch, atMostOnce: boolean): Promise<Reserved | null> {
  const { inboxId, now } = tx;
  if ((await tx.rows(IN_FLIGHT, [inboxId, now])).length > 0) return null; // another dispatcher is sending
  const held = (await tx.rows<HeldRecord>(HELD, [inboxId])).map((row) => ({
    id: row.id,
    body: row.body,
    urgent: row.urgent,
    channel: row.channel,
    reservedBefore: row.reserved_by !== null,
  }));
  const [row] = await tx.rows<{ settings: string | null; batch: string | null; progress: string | null }>(SETTINGS_AND_PROGRESS, [inboxId]);
  // Always one row (FROM (SELECT 1) LEFT JOIN); its columns are null where nothing is stored.
  const settings = row === undefined || row.settings === null ? {} : (JSON.parse(row.settings) as InboxSettings);
  const progress = atMostOnce || row === undefined || row.batch === null || row.progress === null ? null : { batch: row.batch, json: row.progress };
  const { batch, notBefore } = plan({ held, pacing: tx.inbox.pacing, settings, now });
  if (notBefore !== tx.inbox.notBefore) await tx.run(SET_NOT_BEFORE, [inboxId, notBefore]);
  if (batch === null) return null;
  if (batch.pacing !== null) await tx.run(SET_PACING, [inboxId, batch.pacing.next.lastPaced, batch.pacing.next.day, batch.pacing.next.daySends]);
  const ids = batch.messages.map((m) => m.id);
  if (atMostOnce) await tx.run(MARK_SENT_NOW, [inboxId, now, ids]);
  else await tx.run(RESERVE, [inboxId, batch.token, now + tx.options.leaseTtlMs, ids]);
  return { batch, held: held.length, settings, progress };
}

/** Replaces the recorded progress of the batch in flight. */
export async function recordProgress(tx: InboxTx, progress: StoredProgress): Promise<void> {
  await tx.run(RECORD_PROGRESS, [tx.inboxId, progress.batch, progress.json]);
}

/** The send succeeded: the reserved rows are sent, and what a channel did not take is kept. */
export async function recordSent(tx: InboxTx, plan: DispatchPlan, failures: OutboxFailureReport[]): Promise<void> {
  await tx.run(RECORD_SENT, [tx.inboxId, plan.token, tx.now]);
  for (const { messageIds, channel, kind, error } of failures) await tx.run(RECORD_FAILURE, [tx.inboxId, messageIds, channel, kind, error, tx.now]);
}

/** Each open failure becomes a held copy for its channel alone; how many. */
export async function redriveFailures(tx: InboxTx, channel: string | null): Promise<number> {
  const open = await tx.rows<{ id: number; channel: string; body: string; urgent: boolean }>(OPEN_FAILURES, [tx.inboxId, channel]);
  for (const failure of open) {
    await tx.run('INSERT INTO outbox (inbox_id, body, urgent, created_at, channel) VALUES ($1, $2, $3, $4, $5)', [
      tx.inboxId,
      failure.body,
      failure.urgent,
      tx.now,
      failure.channel,
    ]);
    await tx.run('UPDATE outbox_failures SET redriven_at = $2 WHERE id = $1', [failure.id, tx.now]);
  }
  return open.length;
}

/** The open failures of `channel` (null: all) deleted: their messages go nowhere more; how many. */
export async function dropFailures(tx: InboxTx, channel: string | null): Promise<number> {
  return tx.run('DELETE FROM outbox_failures WHERE inbox_id = $1 AND redriven_at IS NULL AND ($2::text IS NULL OR channel = $2)', [tx.inboxId, channel]);
}

/**
 * The send threw: the rows are held again and the pacing is given back, unless
 * the reservation lapsed and another dispatcher took the batch over (and sent
 * it): then nothing is released and the pacing stays taken.
 */
export async function releaseBatch(tx: InboxTx, plan: DispatchPlan): Promise<void> {
  const released = await tx.run(UNRESERVE, [tx.inboxId, plan.token]);
  if (released > 0 && plan.pacing !== null) {
    const { previous, at } = plan.pacing;
    await tx.run(RESTORE_PACING, [tx.inboxId, previous.lastPaced, previous.day, previous.daySends, at]);
  }
}
