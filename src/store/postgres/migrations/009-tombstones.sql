-- Retention (prune.ts): the keys of pruned events, kept forever so a late
-- redelivery is still a duplicate (R1). vigil_ingest reads them beside
-- events. Only the key: a few dozen bytes where the event was its payload
-- and five index entries. Prune reads finished events through
-- events_by_finished (001), oldest first.
CREATE TABLE tombstones (
  inbox_id  text COLLATE "C" NOT NULL,
  source    text COLLATE "C" NOT NULL,
  source_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (inbox_id, source, source_id)
);
