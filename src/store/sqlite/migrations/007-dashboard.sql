-- The dashboard (src/store/contract.ts: approvals, outbox, activity,
-- recordAction/actions). What a person did to the inbox, kept for the record:
CREATE TABLE operator_actions (
  id     INTEGER PRIMARY KEY,
  at     INTEGER NOT NULL,
  actor  TEXT    NOT NULL,
  action TEXT    NOT NULL,
  target TEXT    NOT NULL,
  result TEXT    NOT NULL
);

-- Approvals newest requested first, and the latest sent messages, without
-- sorting an inbox's whole history. Neither is written by ingest, claim or
-- finish: requests are rare, and outbox_sent is written when a dispatch
-- records its batch (sent_at set), as outbox_held is when it was queued.
CREATE INDEX approvals_by_request ON approvals (requested_at, id);
CREATE INDEX outbox_sent ON outbox (sent_at, id) WHERE sent_at IS NOT NULL;

-- Activity over time (events received, finished and runs per bucket)
-- counts each bucket's range of these indexes, so it reads the window it
-- shows, not the inbox's history, and never sorts it (a GROUP BY over
-- 100,000 events took ~100 ms). events_by_finished covers what a finished
-- count and its runs need. Each costs an ingest (received_at: appended at
-- the right edge) or a finish (finished_at) one more index entry.
CREATE INDEX events_by_received ON events (received_at);
CREATE INDEX events_by_finished ON events (finished_at, claim_gen, status) WHERE finished_at IS NOT NULL;
