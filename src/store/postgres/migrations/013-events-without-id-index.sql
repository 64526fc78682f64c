-- Events lose their index on id alone: the key R1 stores an event under,
-- UNIQUE (inbox_id, source, source_id), is the table's key from now on.
-- Every statement on events names its inbox and reaches an event by its
-- key, or by id through events_by_status (inbox_id, status, id): the claim
-- and the finish (the status they expect is known), listings and exports
-- (the four status ranges merged in id order, read.ts), the tombstone
-- check (by key) and the prune (by the ctid its pick found, prune.ts). Nothing read the id index on a hot path, yet
-- every ingest, claim and finish wrote an entry into it: a status change is
-- not a HOT update, so each one adds an entry to every index of the table.
-- The ids stay unique: GENERATED ALWAYS AS IDENTITY draws each from the
-- table's sequence, and no statement supplies one.
-- Logical replication ships updates and deletes by the table's replica
-- identity, the primary key by default: the key's index takes its place.
ALTER TABLE events DROP CONSTRAINT events_pkey;
ALTER TABLE events REPLICA IDENTITY USING INDEX events_inbox_id_source_source_id_key;
