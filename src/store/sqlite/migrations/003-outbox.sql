-- The paced outbox (R9).
CREATE TABLE outbox (
  id             INTEGER PRIMARY KEY,
  body           TEXT    NOT NULL,
  urgent         INTEGER NOT NULL DEFAULT 0,
  created_at     INTEGER NOT NULL,
  sent_at        INTEGER,
  reserved_by    TEXT,                              -- a dispatch in flight
  reserved_until INTEGER
);
CREATE INDEX outbox_held ON outbox (id) WHERE sent_at IS NULL;
-- The wake query (wake.ts), which runs in every write transaction, asks
-- when the outbox may send next: the oldest unreserved message of each kind
-- and the earliest reservation to lapse. Without these, each would walk
-- every held message, and a paced outbox holding thousands of replies
-- would slow every ingest, claim and finish of its inbox.
CREATE INDEX outbox_unreserved ON outbox (urgent, created_at) WHERE sent_at IS NULL AND reserved_by IS NULL;
CREATE INDEX outbox_reserved ON outbox (reserved_until) WHERE sent_at IS NULL AND reserved_by IS NOT NULL;
-- The latest sent messages for the dashboard; written only when a dispatch records its batch.
CREATE INDEX outbox_sent ON outbox (sent_at, id) WHERE sent_at IS NOT NULL;

CREATE TABLE outbox_pacing (
  one           INTEGER PRIMARY KEY CHECK (one = 1),
  last_paced_at INTEGER                             -- last send that counted against the gap
);
INSERT INTO outbox_pacing (one, last_paced_at) VALUES (1, NULL);
