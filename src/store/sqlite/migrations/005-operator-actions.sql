-- What a person did to the inbox from the dashboard or the CLI, kept for the record.
CREATE TABLE operator_actions (
  id     INTEGER PRIMARY KEY,
  at     INTEGER NOT NULL,
  actor  TEXT    NOT NULL,
  action TEXT    NOT NULL,
  target TEXT    NOT NULL,
  result TEXT    NOT NULL
);

-- No index for activity over time (dashboard.ts scans the inbox's events):
-- one on received_at or finished_at would cost every ingest or finish one
-- more entry, about 15% of an ingest's CPU, for a chart.
