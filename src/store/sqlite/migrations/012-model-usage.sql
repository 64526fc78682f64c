-- What each run's model calls used (contract/usage.ts), one row per run
-- that reported any, written by its finish (finish.ts) in the finish's
-- transaction: a finish refused by the fence (R3) writes none, so a run
-- that lost its lease is never counted twice. A failed run's row is kept
-- too: its tokens were paid for. Read by period (the inbox's days and
-- months, engine/usage.ts) for inbox.usage, stats and the budget; pruned
-- after retention.usageMs.
CREATE TABLE usage (
  id                 INTEGER PRIMARY KEY,
  at                 INTEGER NOT NULL,           -- the finish's now, ms
  input_tokens       INTEGER NOT NULL,
  output_tokens      INTEGER NOT NULL,
  cache_read_tokens  INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  cost_usd           REAL,                       -- NULL: no price was known for any of it
  unpriced           INTEGER NOT NULL CHECK (unpriced IN (0, 1))  -- 1: some tokens had no known price
);
CREATE INDEX usage_at ON usage (at);
