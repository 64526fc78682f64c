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

-- No index for activity over time (dashboard.ts scans the inbox's events):
-- one on received_at or finished_at would cost every ingest or finish one
-- more entry, about 15% of an ingest's CPU, for a chart.
