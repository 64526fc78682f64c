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

CREATE TABLE outbox_pacing (
  one           INTEGER PRIMARY KEY CHECK (one = 1),
  last_paced_at INTEGER                             -- last send that counted against the gap
);
INSERT INTO outbox_pacing (one, last_paced_at) VALUES (1, NULL);
