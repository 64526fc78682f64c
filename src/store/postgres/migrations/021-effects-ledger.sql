-- The ledger of side effects (contract/effects.ts): one row per call of a
-- tool declared sideEffect, by its idempotency key. `started` is written,
-- fenced on the lease, before the tool runs; `confirmed` or `failed` with the
-- run's finish. A row left `started` by an older generation (or under an
-- expired lease) is unknown: its run crashed or lost the inbox mid-call.
CREATE TABLE effects (
  inbox_id    text COLLATE "C" NOT NULL,
  key         text COLLATE "C" NOT NULL,
  tool        text NOT NULL,
  input       text NOT NULL,                      -- JSON
  input_hash  text NOT NULL,                      -- sha256 hex of the stable input JSON
  state       text NOT NULL CHECK (state IN ('intended', 'started', 'confirmed', 'failed')),
  gen         bigint,                             -- the lease generation that started it
  intended_at bigint NOT NULL,
  started_at  bigint,
  settled_at  bigint,
  PRIMARY KEY (inbox_id, key)
);
CREATE INDEX effects_by_state ON effects (inbox_id, state, settled_at);

-- The finish settles the calls its run started (p_effect_*) and records
-- those it asked about as intended (p_intent_*): new last parameters of
-- vigil_finish_locked, vigil_finish and vigil_finish_and_claim.
DROP FUNCTION IF EXISTS vigil_finish_locked(text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint, text[], text[], bigint[], bigint[], jsonb, bigint, boolean);
DROP FUNCTION IF EXISTS vigil_finish(text, text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint, text[], text[], bigint[], bigint[], jsonb, bigint, boolean, integer, bigint, bigint, bigint);
DROP FUNCTION IF EXISTS vigil_finish_and_claim(text, text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint, text[], text[], bigint[], bigint[], jsonb, bigint, boolean, bigint, integer, integer, bigint, bigint, bigint);
