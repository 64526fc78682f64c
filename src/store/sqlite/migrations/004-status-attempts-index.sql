-- One index serves every status query, attempts included: the claim's retry
-- and dead-letter steps and the wake query read only the pending events they
-- may act on, not the whole backlog (with (status, id) they walked every
-- pending row). It replaces events_by_status rather than joining it: each
-- index on events is one more page written by every ingest.
CREATE INDEX events_by_status_attempts ON events (status, attempts, id);
DROP INDEX events_by_status;
