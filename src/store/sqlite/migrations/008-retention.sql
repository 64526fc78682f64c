-- Retention (prune.ts): the keys of pruned events, kept forever so a late
-- redelivery is still a duplicate (R1). Only the key: a tombstone is a few
-- dozen bytes where the event it replaces was its payload and three index entries.
CREATE TABLE tombstones (
  source    TEXT NOT NULL,
  source_id TEXT NOT NULL,
  PRIMARY KEY (source, source_id)
) WITHOUT ROWID;

-- What prune reads: finished events oldest first. Partial, so ingest and
-- claim never write it; a finish writes one entry.
CREATE INDEX events_finished ON events (finished_at) WHERE status IN ('done', 'dead');

-- Set, in its last transaction, by deleteInbox before it removes the file:
-- a process that still has the file open sees it in its next transaction,
-- rolls back and opens the inbox again by its name (inbox-db.ts).
ALTER TABLE meta ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
