-- What an agent keeps between runs (src/store/agent-state.ts): its session
-- and its memory, written only by a successful finish, in its transaction.
CREATE TABLE sessions (
  inbox_id   text COLLATE "C" PRIMARY KEY,
  state      text   NOT NULL,                  -- JSON
  updated_at bigint NOT NULL
);

CREATE TABLE memory (
  inbox_id   text COLLATE "C" NOT NULL,
  key        text   NOT NULL,
  value      text   NOT NULL,                  -- JSON
  updated_at bigint NOT NULL,
  PRIMARY KEY (inbox_id, key)
);

-- vigil_finish gained what a run keeps and "dead at once" (R6): new
-- arguments, so the function 004 made is dropped here; the new one is in
-- ../functions/finish.sql. IF EXISTS: a schema created from scratch never
-- had it (the functions are applied after the numbered steps).
DROP FUNCTION IF EXISTS vigil_finish(text, text, bigint, bigint[], text, text[], boolean[], bigint, integer, bigint, bigint, bigint);
