/**
 * R1: each (source, sourceId) is stored once, by the unique key, never by a
 * read-then-write; a key whose event was pruned (prune.ts) stays refused by
 * its tombstone, read in the same statement.
 */
import type { CheckedEvent } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';

const INSERT_EVENT = `
INSERT INTO events (source, source_id, payload, received_at)
SELECT ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE source = ? AND source_id = ?)
ON CONFLICT (source, source_id) DO NOTHING`;

/** For an inbox that has never pruned: no tombstone to read. */
const INSERT_EVENT_NO_TOMBSTONES = `
INSERT INTO events (source, source_id, payload, received_at) VALUES (?, ?, ?, ?)
ON CONFLICT (source, source_id) DO NOTHING`;

const ANY_TOMBSTONE = 'SELECT EXISTS (SELECT 1 FROM tombstones)';

/** True if stored, false for a duplicate (the first payload wins). */
export function insertEvent(c: InboxDb, event: CheckedEvent, now: number): boolean {
  return c.stmt(INSERT_EVENT).run(event.source, event.sourceId, event.payloadJson, now, event.source, event.sourceId).changes === 1;
}

/**
 * insertEvent for each, in order, in the caller's transaction. Whether the
 * inbox has tombstones is read once, for all of them: most inboxes have
 * none, and then no insert reads that table (a tenth of an insert's cost).
 */
export function insertEvents(c: InboxDb, events: readonly CheckedEvent[], now: number): boolean[] {
  if (events.length > 1 && c.stmt(ANY_TOMBSTONE).pluck().get() === 0) {
    const insert = c.stmt(INSERT_EVENT_NO_TOMBSTONES);
    return events.map((event) => insert.run(event.source, event.sourceId, event.payloadJson, now).changes === 1);
  }
  return events.map((event) => insertEvent(c, event, now));
}
