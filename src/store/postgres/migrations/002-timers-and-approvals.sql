-- Timers (R7) and deferred approvals (R8).
CREATE TABLE timers (
  inbox_id      text COLLATE "C" NOT NULL,
  id            text COLLATE "C" NOT NULL,
  due           bigint NOT NULL,               -- next scheduled occurrence
  every         bigint,                        -- interval timers
  cron          text,                          -- cron timers
  tz            text,
  missed        text NOT NULL DEFAULT 'coalesce' CHECK (missed IN ('coalesce', 'each')),
  payload       text NOT NULL,                 -- JSON object
  key_source    text COLLATE "C",              -- fixed event key (one-offs only)
  key_source_id text COLLATE "C",
  done          boolean NOT NULL DEFAULT false,
  last_skipped  integer,
  PRIMARY KEY (inbox_id, id)
);
CREATE INDEX timers_due ON timers (inbox_id, due) WHERE NOT done;

CREATE TABLE approvals (
  inbox_id     text COLLATE "C" NOT NULL,
  id           text COLLATE "C" NOT NULL,
  action       text NOT NULL,                  -- JSON
  requested_at bigint NOT NULL,
  expires_at   bigint NOT NULL,
  answer       text CHECK (answer IN ('yes', 'no', 'expired')),  -- the one that stands
  answered_at  bigint,
  PRIMARY KEY (inbox_id, id)
);
CREATE INDEX approvals_open ON approvals (inbox_id, expires_at) WHERE answer IS NULL;
-- The dashboard lists approvals newest requested first without sorting the inbox's history.
CREATE INDEX approvals_by_request ON approvals (inbox_id, requested_at, id);
