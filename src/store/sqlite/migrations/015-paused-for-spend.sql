-- An inbox paused for spend (engine/budget.ts): until when its events wait
-- (the claim and the wake rule compare paused_until with now), why, and the
-- pause its person was last told of, so that they hear of it once per period.
-- Written by a judgement after a finish that recorded usage, and after a
-- settings change; one row at most.
CREATE TABLE spend_pause (
  one           INTEGER PRIMARY KEY CHECK (one = 1),
  paused_until  INTEGER,                         -- NULL: not paused
  reason        TEXT,
  noticed_until INTEGER
);
