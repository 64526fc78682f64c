/** R1: each (source, sourceId) is stored once, by the unique key, never by a read-then-write. */
import type { CheckedEvent } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';

const INSERT_EVENT = `
INSERT INTO events (source, source_id, payload, received_at) VALUES (?, ?, ?, ?)
ON CONFLICT (source, source_id) DO NOTHING`;

/** True if stored, false for a duplicate (the first payload wins). */
export function insertEvent(c: InboxDb, event: CheckedEvent, now: number): boolean {
  return c.stmt(INSERT_EVENT).run(event.source, event.sourceId, event.payloadJson, now).changes === 1;
}
