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
-- vigil_refresh_work, in every write transaction, asks when the outbox may
-- send next: its oldest unreserved message of each kind and its earliest
-- reservation to lapse. Without these, each would walk every message the
-- inbox holds, and a paced outbox holding thousands of replies would slow
-- each ingest, claim and finish of its inbox.
CREATE INDEX outbox_unreserved ON outbox (inbox_id, urgent, created_at) WHERE sent_at IS NULL AND reserved_by IS NULL;
CREATE INDEX outbox_reserved ON outbox (inbox_id, reserved_until) WHERE sent_at IS NULL AND reserved_by IS NOT NULL;
-- The latest sent messages, and the sent count, without reading what is held.
CREATE INDEX outbox_sent ON outbox (inbox_id, sent_at, id) WHERE sent_at IS NOT NULL;
