-- Quotas per inbox (engine/quota.ts, functions/quota.sql): the minute's
-- count of events from outside, per inbox, in the store, so every instance
-- on this database shares it. A table of its own, as inbox_settings is: the
-- inbox row is rewritten by every write and should stay narrow, and only
-- an ingest with a quota reads or writes this one. Pending events and their
-- bytes are counted from the events themselves, through events_by_status.
CREATE TABLE inbox_rate (
  inbox_id text COLLATE "C" PRIMARY KEY,
  rate_window bigint  NOT NULL,              -- floor(now / 60000) of the minute counted
  rate_count  integer NOT NULL
);

-- vigil_ingest takes the quota (three limits, NULL for none): the old one goes.
DROP FUNCTION IF EXISTS vigil_ingest(text, bigint, text[], text[], text[], integer, bigint, bigint, bigint);
