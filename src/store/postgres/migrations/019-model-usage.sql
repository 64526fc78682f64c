-- What each run's model calls used (contract/usage.ts), one row per run
-- that reported any, written by the run's finish (functions/finish.sql,
-- vigil_finish_locked) in its transaction: a finish refused by the fence
-- (R3) writes none, so a run that lost its lease is never counted twice. A
-- failed run's row is kept too: its tokens were paid for. Read by period
-- (the inbox's days and months) for inbox.usage, stats and the budget;
-- pruned after retention.usageMs; deleted with the inbox.
CREATE TABLE usage (
  inbox_id           text COLLATE "C" NOT NULL,
  id                 bigint GENERATED ALWAYS AS IDENTITY,
  at                 bigint NOT NULL,             -- the finish's now, ms
  input_tokens       bigint NOT NULL,
  output_tokens      bigint NOT NULL,
  cache_read_tokens  bigint NOT NULL,
  cache_write_tokens bigint NOT NULL,
  cost_usd           double precision,            -- NULL: no price was known for any of it
  unpriced           boolean NOT NULL,            -- some tokens had no known price
  PRIMARY KEY (inbox_id, id)
);
CREATE INDEX usage_at ON usage (inbox_id, at);

-- The finish takes the run's usage (p_usage, jsonb): its argument lists change.
DROP FUNCTION IF EXISTS vigil_finish_locked(text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint, text[], text[], bigint[], bigint, boolean);
DROP FUNCTION IF EXISTS vigil_finish(text, text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint, text[], text[], bigint[], bigint, boolean, integer, bigint, bigint, bigint);
DROP FUNCTION IF EXISTS vigil_finish_and_claim(text, text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint, text[], text[], bigint[], bigint, boolean, bigint, integer, integer, bigint, bigint, bigint);
