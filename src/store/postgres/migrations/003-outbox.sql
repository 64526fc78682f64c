-- The paced outbox (R9). Pacing (last_paced_at) lives on the inbox row.
CREATE TABLE outbox (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  inbox_id       text COLLATE "C" NOT NULL,
  body           text NOT NULL,
  urgent         boolean NOT NULL DEFAULT false,
  created_at     bigint NOT NULL,
  sent_at        bigint,
  reserved_by    text,                          -- a dispatch in flight
  reserved_until bigint
);
CREATE INDEX outbox_held ON outbox (inbox_id, id) WHERE sent_at IS NULL;
CREATE INDEX outbox_sent ON outbox (inbox_id) WHERE sent_at IS NOT NULL;
