/**
 * R1: each (source, sourceId) is stored once per inbox, by the unique key
 * (INSERT ... ON CONFLICT DO NOTHING), never by a read-then-write; a key
 * whose event was pruned stays refused by its tombstone, even when the prune
 * commits while the insert waits on that key (functions/ingest.sql,
 * vigil_insert_events). (The one read, vigil_ingest's look for keys already
 * stored, only ever answers "duplicate": a stored key only ever moves to the
 * tombstones, in one transaction, so that answer is final.)
 */
import type { InboxLimits } from '../contract.js';
import type { IngestResult, QuotaRefusal } from '../engine/quota.js';
import type { CheckedEvent } from '../engine/validate/index.js';
import { workParams, type CallTarget, type Statement } from './call.js';
import type { InboxTx } from './inbox-tx.js';

/**
 * Ingest is the hottest write, so it is one statement (its own transaction):
 * vigil_ingest in functions/ingest.sql. When every key is already
 * stored it answers "duplicate" from the snapshot and writes nothing;
 * otherwise it creates or locks the inbox row, inserts the events (the first
 * of equal keys winning) and lowers the inbox's wake time in the work table.
 * The wake-up hint follows in the same round trip (CallTarget.callThenWake).
 */
const INGEST: Statement = {
  name: 'vigil_ingest',
  text: 'SELECT source, source_id FROM vigil_ingest($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)',
};

// The same insert vigil_ingest makes, with its look for a prune that committed meanwhile.
const INSERT_EVENTS = 'SELECT source, source_id FROM vigil_insert_events($1, $2, $3, $4, $5)';

interface Key {
  source: string;
  source_id: string;
}

/** One boolean per event, in order: true if stored, false for a duplicate (the first payload wins). */
export async function ingestEvents(db: CallTarget, inboxId: string, events: CheckedEvent[], wake: boolean, quota: InboxLimits | null): Promise<IngestResult[]> {
  const limits = quota === null ? [null, null, null] : [quota.pendingEventsPerInbox, quota.pendingBytesPerInbox, quota.eventsPerMinutePerInbox];
  const params = [inboxId, db.appNow(), ...columns(events), ...workParams(db.options), ...limits];
  try {
    const stored = wake ? await db.callThenWake<Key>(INGEST, params) : await db.call<Key>(INGEST, params);
    return matchStored(events, stored);
  } catch (error) {
    const refusal = quotaRefusal(error);
    if (refusal === null) throw error;
    return events.map(() => refusal);
  }
}

/** Raised by vigil_check_quota (functions/quota.sql): the refusal, with the transaction's now as its detail. */
const QUOTA_REFUSED = 'VG003';

function quotaRefusal(error: unknown): QuotaRefusal | null {
  const { code, message, detail } = (error ?? {}) as { code?: unknown; message?: unknown; detail?: unknown };
  if (code !== QUOTA_REFUSED || (message !== 'inbox_full' && message !== 'rate_limited')) return null;
  return { refused: message, now: Number(detail) };
}

/** R1 inside an inbox transaction (timer and approval events). */
export async function insertEvents(tx: InboxTx, events: CheckedEvent[]): Promise<boolean[]> {
  if (events.length === 0) return [];
  const stored = await tx.rows<Key>(INSERT_EVENTS, [tx.inboxId, tx.now, ...columns(events)]);
  return matchStored(events, stored);
}

function columns(events: CheckedEvent[]): [string[], string[], string[]] {
  return [events.map((e) => e.source), events.map((e) => e.sourceId), events.map((e) => e.payloadJson)];
}

/** The first event of each key that came back from RETURNING was stored; the rest were duplicates. */
function matchStored(events: CheckedEvent[], stored: Key[]): boolean[] {
  const fresh = new Set(stored.map((row) => keyOf(row.source, row.source_id)));
  return events.map((event) => fresh.delete(keyOf(event.source, event.sourceId)));
}

function keyOf(source: string, sourceId: string): string {
  return JSON.stringify([source, sourceId]);
}
