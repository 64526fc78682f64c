-- An inbox's own settings (contract.ts, InboxSettings): the JSON as given,
-- and beside it what the wake query (wake.ts) needs to read in every write
-- transaction without parsing JSON: the gap, and the debounce with its cap.
CREATE TABLE settings (
  one         INTEGER PRIMARY KEY CHECK (one = 1),
  json        TEXT    NOT NULL,
  gap_ms      INTEGER,                           -- NULL: the store's outboxGapMs
  debounce_ms INTEGER,                           -- NULL: no debounce
  max_wait_ms INTEGER
);

-- Pacing per person (outbox-batch.ts): until when quiet hours or a used-up
-- daily limit hold non-urgent messages, and the sends counted on one local day.
ALTER TABLE outbox_pacing ADD COLUMN not_before INTEGER;
ALTER TABLE outbox_pacing ADD COLUMN day TEXT;
ALTER TABLE outbox_pacing ADD COLUMN day_sends INTEGER NOT NULL DEFAULT 0;
