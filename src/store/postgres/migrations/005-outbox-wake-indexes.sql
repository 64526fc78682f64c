-- vigil_refresh_work asks when an inbox's outbox may send next: its oldest
-- unreserved message of each kind, and its earliest reservation to lapse.
-- outbox_held alone made each of those a walk over every message the inbox
-- holds, in every write transaction: a paced outbox holding a few thousand
-- replies slowed each ingest, claim and finish of its inbox. Same indexes
-- as the SQLite store's migration 005.
CREATE INDEX outbox_unreserved ON outbox (inbox_id, urgent, created_at) WHERE sent_at IS NULL AND reserved_by IS NULL;
CREATE INDEX outbox_reserved ON outbox (inbox_id, reserved_until) WHERE sent_at IS NULL AND reserved_by IS NOT NULL;
