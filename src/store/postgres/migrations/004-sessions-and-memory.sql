-- What an agent keeps between runs (engine/validate/agent-state.ts): its
-- session and its memory, written only by a successful finish, in its transaction.
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
