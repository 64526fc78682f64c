-- A run's steps, each one transaction and one call (run-step.ts;
-- contract.ts: acquireAndClaim, finishAndClaim). A run was acquire, claim,
-- finish, then claim again until nothing is left, then release: each a call
-- of its own, each locking the inbox row, each a round trip and a commit.
-- Here the rules are the same functions (vigil_take_lease, vigil_claim_locked,
-- vigil_finish_locked) on one locked row, and the work row is refreshed once:
--   * vigil_acquire_and_claim: R2, then R4 under the lease it gave;
--   * vigil_finish_and_claim: R3 and R5, then (once the finish is recorded)
--     R4, and the lease renewed in the same generation, as acquire renews it.
-- Both then release the lease (R2, as vigil_release) when the claim took
-- nothing and no event of the generation is still running
-- (engine/lease.ts, endsRun): a run with nothing left leaves nothing held
-- (vigil_continue_or_end_run).
-- Their commits wait for the WAL flush: an acquire's and a finish's must
-- (commit-without-flush.sql), and the claim and release in them are only
-- the stronger for it.
-- Rows: first the step's own ('lease' with gen, renewed, takeover; or
-- 'finished'), then the claim's ('claimed', 'dead'). No rows: refused (the
-- lease is another holder's; the finish is not this run's), nothing changed.

CREATE OR REPLACE FUNCTION vigil_acquire_and_claim(p_inbox text, p_holder text, p_now bigint, p_lease_ttl bigint,
                                                   p_max_attempts integer, p_batch_limit integer,
                                                   p_base bigint, p_max bigint, p_gap bigint)
RETURNS TABLE (kind text, id bigint, source text, source_id text, payload text, attempts integer, last_error text,
               gen bigint, renewed boolean, takeover boolean)
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
  v_gen bigint;
  v_claimed boolean := false;
BEGIN
  -- The lock as vigil_lock_inbox takes it, which also creates the row; inline for the inbox that exists.
  UPDATE inboxes SET write_seq = write_seq + 1 WHERE inbox_id = p_inbox RETURNING * INTO r;
  IF NOT FOUND THEN
    r := vigil_lock_inbox(p_inbox, true);
  END IF;
  v_now := COALESCE(p_now, vigil_clock_ms());
  SELECT l.o_gen, l.o_renewed, l.o_takeover INTO v_gen, renewed, takeover
  FROM vigil_take_lease(p_inbox, r.holder, r.gen, r.lease_until, p_holder, v_now, p_lease_ttl) AS l;
  IF v_gen IS NULL THEN
    PERFORM vigil_commit_without_flush();            -- nothing changed: nothing to make durable
    RETURN;                                          -- another holder's lease is valid
  END IF;
  kind := 'lease';
  gen := v_gen;
  RETURN NEXT;
  gen := NULL;
  renewed := NULL;
  takeover := NULL;

  FOR kind, id, source, source_id, payload, attempts, last_error IN
    SELECT * FROM vigil_claim_locked(p_inbox, v_gen, v_now, p_max_attempts, p_batch_limit, p_base, p_max)
  LOOP
    v_claimed := v_claimed OR kind = 'claimed';
    RETURN NEXT;
  END LOOP;

  IF v_claimed THEN
    PERFORM vigil_refresh_work_claimed(p_inbox, v_now + p_lease_ttl, v_now, p_max_attempts, p_base, p_max, p_gap);
  ELSE
    PERFORM vigil_continue_or_end_run(p_inbox, false, true, v_now, NULL);
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION vigil_finish_and_claim(p_inbox text, p_holder text, p_gen bigint, p_ids bigint[],
                             p_error text, p_dead boolean, p_bodies text[], p_urgent boolean[],
                             p_session_set boolean, p_session text,
                             p_memory_keys text[], p_memory_values text[], p_memory_limit bigint,
                             p_approval_ids text[], p_approval_actions text[], p_approval_expires_in bigint[], p_approval_remind_in bigint[],
                             p_usage jsonb, p_now bigint, p_wake boolean, p_lease_ttl bigint, p_batch_limit integer,
                             p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint,
                             p_effect_keys text[], p_effect_states text[],
                             p_intent_keys text[], p_intent_tools text[], p_intent_inputs text[], p_intent_hashes text[])
RETURNS TABLE (kind text, id bigint, source text, source_id text, payload text, attempts integer, last_error text)
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
  v_pending boolean;
  v_running boolean;
  v_claim boolean;
  v_claimed boolean := false;
BEGIN
  UPDATE inboxes SET write_seq = write_seq + 1 WHERE inbox_id = p_inbox RETURNING * INTO r;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_now := COALESCE(p_now, vigil_clock_ms());
  IF (r.holder = p_holder AND r.gen = p_gen AND r.lease_until >= v_now) IS NOT TRUE THEN
    RETURN;                                          -- R3: not this caller's lease
  END IF;
  IF NOT vigil_finish_locked(p_inbox, p_gen, p_ids, p_error, p_dead, p_bodies, p_urgent, p_session_set, p_session,
                             p_memory_keys, p_memory_values, p_memory_limit,
                             p_approval_ids, p_approval_actions, p_approval_expires_in, p_approval_remind_in, p_usage, v_now, p_wake,
                             p_effect_keys, p_effect_states, p_intent_keys, p_intent_tools, p_intent_inputs, p_intent_hashes) THEN
    RETURN;                                          -- R3: not all of p_ids are this run's
  END IF;
  kind := 'finished';
  RETURN NEXT;

  -- What the inbox has left, read once: the claim runs only where it can find something (as
  -- vigil_claim asks before it locks), a pending event or one left running by an older generation,
  -- and the run's end and the work row are then decided without reading the events again. The
  -- last batch's finish, the common case, finds neither and skips all three.
  SELECT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending'),
         EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running')
    INTO v_pending, v_running;
  v_claim := v_pending;
  IF v_running AND NOT v_claim THEN
    v_claim := EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen);
  END IF;
  IF v_claim THEN
    FOR kind, id, source, source_id, payload, attempts, last_error IN
      SELECT * FROM vigil_claim_locked(p_inbox, p_gen, v_now, p_max_attempts, p_batch_limit, p_base, p_max)
    LOOP
      v_claimed := v_claimed OR kind = 'claimed';
      RETURN NEXT;
    END LOOP;
  END IF;

  -- An event runs now only if one did before, or the claim took it (v_claimed).
  PERFORM vigil_continue_or_end_run(p_inbox, v_claimed, v_running, v_now, p_lease_ttl);
  PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap, v_pending OR v_running);
END $$;

-- engine/lease.ts, endsRun: after a step's claim, a run that claimed
-- nothing and has no event of its generation still running (the claim just
-- put back any of an older one) is over: its lease ends as vigil_release
-- ends it, lease_until = now - 1, so the next acquire takes over at once
-- with gen + 1. A run that goes on keeps its lease, renewed to now +
-- p_lease_ttl when one is given (a finish's step: as acquire renews, same
-- generation; an acquire's step has just set it). p_may_run false: the
-- caller saw no running event before its claim, and a claim makes running
-- only what it takes, so with p_claimed false there is none to look for.
CREATE OR REPLACE FUNCTION vigil_continue_or_end_run(p_inbox text, p_claimed boolean, p_may_run boolean, p_now bigint, p_lease_ttl bigint)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_ends boolean := NOT p_claimed;
BEGIN
  IF v_ends AND p_may_run THEN                       -- two IFs: a condition with a query in it is a query to run
    v_ends := NOT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running');
  END IF;
  IF v_ends THEN
    UPDATE inboxes SET lease_until = p_now - 1 WHERE inbox_id = p_inbox;
  ELSIF p_lease_ttl IS NOT NULL THEN
    UPDATE inboxes SET lease_until = p_now + p_lease_ttl WHERE inbox_id = p_inbox;
  END IF;
END $$;
