-- The ledger of side effects (contract/effects.ts): one row per call of a
-- tool declared sideEffect, by its idempotency key. `started` is written,
-- fenced on the lease, before the tool runs; `confirmed` or `failed` with the
-- run's finish. A row left `started` by an older generation (or under an
-- expired lease) is unknown: its run crashed or lost the inbox mid-call.
CREATE TABLE effects (
  key         TEXT    PRIMARY KEY,
  tool        TEXT    NOT NULL,
  input       TEXT    NOT NULL,                   -- JSON
  input_hash  TEXT    NOT NULL,                   -- sha256 hex of the stable input JSON
  state       TEXT    NOT NULL CHECK (state IN ('intended', 'started', 'confirmed', 'failed')),
  gen         INTEGER,                            -- the lease generation that started it
  intended_at INTEGER NOT NULL,
  started_at  INTEGER,
  settled_at  INTEGER
);
-- Unknown calls are read by state; settled ones are pruned by settled_at.
CREATE INDEX effects_by_state ON effects (state, settled_at);
