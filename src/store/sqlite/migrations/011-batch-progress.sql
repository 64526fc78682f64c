-- Which channels are done with the batch being sent (took it, or will never
-- take it), recorded as each one is: a crash or a failed channel then never
-- sends that batch again to a channel that took it (it was held in the
-- dispatcher's memory, so a crash resent it to every channel). One batch is
-- in flight at a time, so one row; `batch` names it (engine/dispatch.ts), and
-- progress recorded for another batch is ignored. Cleared when the batch is sent.
CREATE TABLE outbox_progress (
  one      INTEGER PRIMARY KEY CHECK (one = 1),
  batch    TEXT    NOT NULL,
  progress TEXT    NOT NULL                 -- JSON: { channels, failures }
);

-- A third kind of failure: 'uncertain', a channel that cannot know whether
-- its send landed (a timeout after the request went out), under at-most-once
-- delivery: kept for an operator to resend or drop. SQLite cannot change a
-- CHECK, so the table is rebuilt.
CREATE TABLE outbox_failures_new (
  id          INTEGER PRIMARY KEY,
  message_id  INTEGER NOT NULL,
  channel     TEXT    NOT NULL,
  kind        TEXT    NOT NULL CHECK (kind IN ('rejected', 'undeliverable', 'uncertain')),
  error       TEXT    NOT NULL,
  failed_at   INTEGER NOT NULL,
  redriven_at INTEGER
);
INSERT INTO outbox_failures_new SELECT id, message_id, channel, kind, error, failed_at, redriven_at FROM outbox_failures;
DROP TABLE outbox_failures;
ALTER TABLE outbox_failures_new RENAME TO outbox_failures;
CREATE INDEX outbox_failures_open ON outbox_failures (channel, id) WHERE redriven_at IS NULL;
