/**
 * R1: each (source, sourceId) is stored once, by the unique key, never by a
 * read-then-write; a key whose event was pruned (prune.ts) stays refused by
 * its tombstone, read in the same statement.
 */
import type { CheckedEvent } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';

const INSERT_EVENT = `
INSERT INTO events (source, source_id, payload, received_at)
SELECT @source, @sourceId, @payload, @now WHERE NOT EXISTS (SELECT 1 FROM tombstones WHERE source = @source AND source_id = @sourceId)
ON CONFLICT (source, source_id) DO NOTHING`;

/** True if stored, false for a duplicate (the first payload wins). */
export function insertEvent(c: InboxDb, event: CheckedEvent, now: number): boolean {
  return c.stmt(INSERT_EVENT).run({ source: event.source, sourceId: event.sourceId, payload: event.payloadJson, now }).changes === 1;
}
