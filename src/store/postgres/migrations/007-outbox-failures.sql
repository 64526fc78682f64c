-- Messages a channel did not take for good (a rejection, or no address for
-- this inbox's person on it), kept, visible and redrivable, rather than
-- retried forever or dropped. A redrive queues a copy for that channel alone.
CREATE TABLE outbox_failures (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  inbox_id    text COLLATE "C" NOT NULL,
  message_id  bigint NOT NULL,                     -- outbox.id
  channel     text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('rejected', 'undeliverable')),
  error       text NOT NULL,
  failed_at   bigint NOT NULL,
  redriven_at bigint
);
CREATE INDEX outbox_failures_open ON outbox_failures (inbox_id, channel, id) WHERE redriven_at IS NULL;

-- NULL: for every channel; a redriven copy names the one channel it is for.
ALTER TABLE outbox ADD COLUMN channel text;
