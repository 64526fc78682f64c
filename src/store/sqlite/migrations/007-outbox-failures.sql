-- Messages a channel did not take for good (a rejection, or no address for
-- this inbox's person on it), kept, visible and redrivable, rather than
-- retried forever or dropped. A redrive queues a copy for that channel alone.
CREATE TABLE outbox_failures (
  id          INTEGER PRIMARY KEY,
  message_id  INTEGER NOT NULL,                    -- outbox.id
  channel     TEXT    NOT NULL,
  kind        TEXT    NOT NULL CHECK (kind IN ('rejected', 'undeliverable')),
  error       TEXT    NOT NULL,
  failed_at   INTEGER NOT NULL,
  redriven_at INTEGER
);
CREATE INDEX outbox_failures_open ON outbox_failures (channel, id) WHERE redriven_at IS NULL;

-- NULL: for every channel; a redriven copy names the one channel it is for.
ALTER TABLE outbox ADD COLUMN channel TEXT;
