-- Timers (R7) and deferred approvals (R8).
CREATE TABLE timers (
  id            TEXT    PRIMARY KEY,
  due           INTEGER NOT NULL,                   -- next scheduled occurrence
  every         INTEGER,                            -- interval timers
  cron          TEXT,                               -- cron timers
  tz            TEXT,
  missed        TEXT    NOT NULL DEFAULT 'coalesce' CHECK (missed IN ('coalesce', 'each')),
  payload       TEXT    NOT NULL,                   -- JSON object
  key_source    TEXT,                               -- fixed event key (one-offs only)
  key_source_id TEXT,
  done          INTEGER NOT NULL DEFAULT 0,
  last_skipped  INTEGER
);
CREATE INDEX timers_due ON timers (due) WHERE done = 0;

CREATE TABLE approvals (
  id           TEXT    PRIMARY KEY,
  action       TEXT    NOT NULL,                    -- JSON
  requested_at INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  answer       TEXT CHECK (answer IN ('yes', 'no', 'expired')),  -- the one that stands
  answered_at  INTEGER
);
CREATE INDEX approvals_open ON approvals (expires_at) WHERE answer IS NULL;
-- The dashboard lists approvals newest requested first without sorting the inbox's history.
CREATE INDEX approvals_by_request ON approvals (requested_at, id);
