-- An inbox's own settings (contract.ts, InboxSettings), as given, in a
-- table of their own: the inbox row is rewritten by every write, and
-- should stay narrow.
CREATE TABLE inbox_settings (
  inbox_id text COLLATE "C" PRIMARY KEY,
  json     text NOT NULL
);

-- What vigil_refresh_work reads of them on the locked row, in every write
-- transaction: the gap, and the debounce with its cap. And the pacing per
-- person (outbox-batch.ts): until when quiet hours or a used-up daily limit
-- hold non-urgent messages, and the sends counted on one local day.
ALTER TABLE inboxes
  ADD COLUMN gap_ms      bigint,                -- NULL: the store's outboxGapMs
  ADD COLUMN debounce_ms bigint,                -- NULL: no debounce
  ADD COLUMN max_wait_ms bigint,
  ADD COLUMN not_before  bigint,
  ADD COLUMN pacing_day  text,
  ADD COLUMN day_sends   integer NOT NULL DEFAULT 0;

-- vigil_ingest takes the store's rules now (a debounced inbox's ingest runs
-- the whole work refresh): the old one, with fewer arguments, goes.
DROP FUNCTION IF EXISTS vigil_ingest(text, bigint, text[], text[], text[]);
