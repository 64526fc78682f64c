-- One database, one schema, every inbox: each table carries inbox_id. Keys
-- use the "C" collation so equality and ORDER BY are byte-wise, as in SQLite
-- (a locale collation would sort 'B' after 'a').

-- One row per inbox: its lease (R2, R3) and its outbox pacing (R9). Every
-- write transaction of an inbox locks this row first. PostgreSQL has no
-- BEGIN IMMEDIATE: this row lock is what serialises one inbox's writers,
-- while writers of other inboxes never wait for each other.
CREATE TABLE inboxes (
  inbox_id      text COLLATE "C" PRIMARY KEY,
  holder        text COLLATE "C",              -- NULL until the first acquire
  gen           bigint NOT NULL DEFAULT 0,     -- +1 on every takeover
  lease_until   bigint,                        -- the lease is valid while lease_until >= now
  last_paced_at bigint,                        -- R9: the last send that counted against the gap
  write_seq     bigint NOT NULL DEFAULT 0,     -- write transactions so far; bumping it takes the lock
  created_at    bigint NOT NULL
) WITH (fillfactor = 70);                      -- room for HOT updates: every write touches the row

-- Two ids that differ only in case never both exist (contract.ts), as on a
-- SQLite store whose file system ignores case: a store moves between
-- backends with the same inboxes. Ids are ASCII, so lower() is exact.
CREATE UNIQUE INDEX inboxes_id_ignoring_case ON inboxes (lower(inbox_id));

CREATE TABLE events (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  inbox_id      text COLLATE "C" NOT NULL,
  source        text COLLATE "C" NOT NULL,
  source_id     text COLLATE "C" NOT NULL,
  payload       text NOT NULL,                 -- JSON as written (jsonb would reorder its keys)
  status        text NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'done', 'dead')),
  attempts      integer NOT NULL DEFAULT 0,    -- counted at claim (R4)
  claim_gen     bigint,                        -- lease generation of the last claim
  last_claim_at bigint,                        -- start of the retry backoff
  error         text,
  last_error    text,                          -- kept when the event dies
  received_at   bigint NOT NULL,
  finished_at   bigint,
  -- R1: the database, not a read-then-write, stores each source key once.
  UNIQUE (inbox_id, source, source_id)
);

-- Claims, stats and listings walk one inbox's status in id order, so their
-- cost follows the pending work, never the pile of done rows.
CREATE INDEX events_by_status ON events (inbox_id, status, id);

-- "Needs attention" over every inbox (listInboxes): which inboxes hold a
-- dead event, without a probe per inbox. Partial: an event enters it only
-- when it dies, so ingest, claim and a successful finish never write it.
CREATE INDEX events_dead ON events (inbox_id) WHERE status = 'dead';

-- Activity over time (the dashboard's chart) reads one inbox's window, not
-- its history. events_by_received costs each ingest, claim and finish an
-- index entry (status changes are not HOT), and the partial
-- events_by_finished, covering the runs that finished them, each finish
-- one; measured within the noise of the end-to-end benchmark.
CREATE INDEX events_by_received ON events (inbox_id, received_at);
CREATE INDEX events_by_finished ON events (inbox_id, finished_at, claim_gen, status) WHERE finished_at IS NOT NULL;

-- The work table: when each inbox next needs a worker (wake_at: claimable
-- events, due timers or approvals) or a dispatcher (send_at). Derived from
-- the rows above in the same transaction that changes them, under the
-- inbox's row lock, so it is never stale after a commit. readyInboxes() and
-- dispatchableInboxes() read it through these partial indexes: their cost
-- follows the due work, not the number of inboxes.
CREATE TABLE work (
  inbox_id text COLLATE "C" PRIMARY KEY,
  wake_at  bigint,
  send_at  bigint
);
CREATE INDEX work_by_wake ON work (wake_at) WHERE wake_at IS NOT NULL;
CREATE INDEX work_by_send ON work (send_at) WHERE send_at IS NOT NULL;
