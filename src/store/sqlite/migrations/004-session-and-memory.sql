-- What an agent keeps between runs (engine/validate/agent-state.ts): its
-- session and its memory, written only by a successful finish, in its transaction.
CREATE TABLE session (
  one        INTEGER PRIMARY KEY CHECK (one = 1),
  state      TEXT    NOT NULL,                 -- JSON
  updated_at INTEGER NOT NULL
);

CREATE TABLE memory (
  key        TEXT    PRIMARY KEY,
  value      TEXT    NOT NULL,                 -- JSON
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
