-- The inbox (R1, R4-R6) and its lease (R2, R3). One file per inbox.
CREATE TABLE events (
  id            INTEGER PRIMARY KEY,
  source        TEXT    NOT NULL,
  source_id     TEXT    NOT NULL,
  payload       TEXT    NOT NULL,                  -- JSON
  status        TEXT    NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'done', 'dead')),
  attempts      INTEGER NOT NULL DEFAULT 0,         -- counted at claim (R4)
  claim_gen     INTEGER,                            -- lease generation of the last claim
  last_claim_at INTEGER,                            -- start of the retry backoff
  error         TEXT,
  last_error    TEXT,                               -- kept when the event dies
  received_at   INTEGER NOT NULL,
  finished_at   INTEGER,
  -- R1: the database, not a read-then-write, stores each source key once.
  UNIQUE (source, source_id)
);

-- Every status query reads through this one index, attempts included: the
-- claim's retry and dead-letter steps, the wake query, stats and listings
-- read only the rows of the status they ask for, so their cost follows the
-- pending work, never the pile of done rows. One index, not one per query:
-- each index on events is one more page written by every ingest.
CREATE INDEX events_by_status_attempts ON events (status, attempts, id);

CREATE TABLE lease (
  one    INTEGER PRIMARY KEY CHECK (one = 1),         -- a single row
  holder TEXT    NOT NULL,
  gen    INTEGER NOT NULL,                          -- +1 on every takeover
  until  INTEGER NOT NULL
);

-- Counts committed write transactions; orders updates of the ready index.
CREATE TABLE meta (
  one       INTEGER PRIMARY KEY CHECK (one = 1),
  write_seq INTEGER NOT NULL
);
INSERT INTO meta (one, write_seq) VALUES (1, 0);
