-- The wake query (wake.ts) asks when the outbox may send next: the oldest
-- unreserved message of each kind, and the earliest reservation to lapse.
-- outbox_held alone made each of those a walk over every held message, and
-- the wake query runs in every write transaction, so a paced outbox that
-- held a few thousand messages slowed every ingest, claim and finish.
CREATE INDEX outbox_unreserved ON outbox (urgent, created_at) WHERE sent_at IS NULL AND reserved_by IS NULL;
CREATE INDEX outbox_reserved ON outbox (reserved_until) WHERE sent_at IS NULL AND reserved_by IS NOT NULL;
