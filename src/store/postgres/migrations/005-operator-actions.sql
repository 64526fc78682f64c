-- What a person did to an inbox from the dashboard or the CLI, kept for the record.
CREATE TABLE operator_actions (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  inbox_id text COLLATE "C" NOT NULL,
  at       bigint NOT NULL,
  actor    text NOT NULL,
  action   text NOT NULL,
  target   text NOT NULL,
  result   text NOT NULL
);
CREATE INDEX operator_actions_by_inbox ON operator_actions (inbox_id, id);
