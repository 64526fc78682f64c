/**
 * R1: each (source, sourceId) is stored once per inbox, by the unique key
 * (INSERT ... ON CONFLICT DO NOTHING), never by a read-then-write.
 */
import type { CheckedEvent } from '../validate.js';
import { DB_NOW_MS } from './connection.js';
import type { InboxTx } from './inbox-tx.js';

/**
 * Ingest is the hottest write, so it is one statement (one round trip, its
 * own transaction). In order, forced by each step reading the one before:
 *   1. create or lock the inbox row (and read "now" after the lock),
 *   2. insert the events, the first of equal keys winning,
 *   3. lower the inbox's wake time in the work table (never raise it:
 *      while a lease is live, fresh events wait for until + 1), and
 *   4. notify subscribers, delivered at commit.
 * Because step 3 happens under the row lock, it can never interleave with
 * another transaction's exact refresh of the same work row (work.ts).
 *
 * $1 inbox, $2 now from the app clock (NULL: the database's), $3-$5 sources,
 * source ids and JSON payloads, $6 the notification channel.
 */
const INGEST = `
WITH inbox AS (
  INSERT INTO inboxes AS i (inbox_id, created_at) VALUES ($1, ${DB_NOW_MS})
  ON CONFLICT (inbox_id) DO UPDATE SET write_seq = i.write_seq + 1
  RETURNING i.lease_until, COALESCE($2::bigint, ${DB_NOW_MS}) AS now
), stored AS (
  INSERT INTO events (inbox_id, source, source_id, payload, received_at)
  SELECT $1, e.source, e.source_id, e.payload, inbox.now
  FROM inbox, unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(source, source_id, payload, n)
  ORDER BY e.n
  ON CONFLICT (inbox_id, source, source_id) DO NOTHING
  RETURNING source, source_id
), hint AS (
  INSERT INTO work AS w (inbox_id, wake_at)
  SELECT $1, CASE WHEN inbox.lease_until >= inbox.now THEN inbox.lease_until + 1 ELSE inbox.now END
  FROM inbox WHERE EXISTS (SELECT 1 FROM stored)
  ON CONFLICT (inbox_id) DO UPDATE SET wake_at = LEAST(w.wake_at, excluded.wake_at)
)
SELECT source, source_id, pg_notify($6, $1) FROM stored`;

const INSERT_EVENTS = `
INSERT INTO events (inbox_id, source, source_id, payload, received_at)
SELECT $1, e.source, e.source_id, e.payload, $2
FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS e(source, source_id, payload, n)
ORDER BY e.n
ON CONFLICT (inbox_id, source, source_id) DO NOTHING
RETURNING source, source_id`;

interface Key {
  source: string;
  source_id: string;
}

export interface IngestTarget {
  query<T extends object>(sql: string, params: unknown[]): Promise<T[]>;
}

/** One boolean per event, in order: true if stored, false for a duplicate (the first payload wins). */
export async function ingestEvents(
  db: IngestTarget,
  inboxId: string,
  events: CheckedEvent[],
  appNow: number | null,
  channel: string,
): Promise<boolean[]> {
  const stored = await db.query<Key>(INGEST, [inboxId, appNow, ...columns(events), channel]);
  return matchStored(events, stored);
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
