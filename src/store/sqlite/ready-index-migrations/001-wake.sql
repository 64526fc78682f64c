-- The ready index (ready-index.ts): per inbox, when it may next have work
-- and when its outbox may next send. A hint beside the inbox files, never
-- the truth (docs/design/ready-index.md).
CREATE TABLE wake (
  inbox_id TEXT    PRIMARY KEY,
  wake_at  INTEGER,             -- claimable events, due timers or approvals from then on
  send_at  INTEGER,             -- the outbox may send from then on
  seq      INTEGER NOT NULL,    -- the inbox's write_seq that wrote this row
  exact    INTEGER NOT NULL,    -- 1 once that transaction committed and settled it
  dead     INTEGER NOT NULL     -- dead events, for the overview's "needs attention"
) WITHOUT ROWID;
CREATE INDEX wake_by_time ON wake (wake_at) WHERE wake_at IS NOT NULL;
CREATE INDEX send_by_time ON wake (send_at) WHERE send_at IS NOT NULL;
CREATE INDEX wake_with_dead ON wake (inbox_id) WHERE dead > 0;
-- Ids that differ only in case never both exist (contract.ts): the lookup a new inbox makes.
CREATE INDEX wake_by_id_ignoring_case ON wake (inbox_id COLLATE NOCASE);

-- The machine boot in which every row was last re-derived from the inbox
-- files (boot-id.ts). No row: never, as in a new or deleted index file.
CREATE TABLE rebuilt (
  one  INTEGER PRIMARY KEY CHECK (one = 1),
  boot TEXT    NOT NULL
);
