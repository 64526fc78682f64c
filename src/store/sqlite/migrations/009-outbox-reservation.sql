-- R9's reservation (dispatch.ts) as one row instead of a mark on each
-- message: reserving a batch of 10,000 held messages wrote 10,000 rows and
-- moved each between two partial indexes, then recording it sent wrote
-- them again. Now a reservation is one row naming its batch, a range of ids
-- when the batch is every held message between two ids (what a dispatch
-- nearly always sends), a JSON list otherwise; only the send is recorded
-- on each message. One dispatch is in flight at a time, so one row.
CREATE TABLE outbox_reservation (
  one      INTEGER PRIMARY KEY CHECK (one = 1),
  token    TEXT    NOT NULL,
  until    INTEGER NOT NULL,                 -- the reservation lapses after this
  first_id INTEGER NOT NULL,
  last_id  INTEGER NOT NULL,
  ids      TEXT                              -- NULL: every held message from first_id to last_id
);

-- A dispatch in flight while this file is upgraded loses its reservation:
-- its messages are held again, and go with the next dispatch after the gap.
DROP INDEX outbox_held;
DROP INDEX outbox_unreserved;
DROP INDEX outbox_reserved;
ALTER TABLE outbox DROP COLUMN reserved_by;
ALTER TABLE outbox DROP COLUMN reserved_until;

-- What is held, by kind: the wake query's oldest urgent and oldest paced
-- message (wake.ts), the dispatch's read of every held message, and the
-- dashboard's. One index on held messages, not two: each is one more entry
-- every message's send removes.
CREATE INDEX outbox_held ON outbox (urgent, created_at) WHERE sent_at IS NULL;
