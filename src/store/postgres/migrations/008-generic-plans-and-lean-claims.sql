-- Less server work per run (BENCHMARKS.md, "PostgreSQL vs graphile-worker").

-- 1. Generic plans for every statement in the hot functions.
-- PL/pgSQL plans each statement afresh for its first five calls on a
-- connection, then keeps a generic plan only if it does not look dearer
-- than the custom ones, and it often looked dearer here: a CPU profile of
-- one-event runs found 10% of the server's time in the planner. Every
-- statement in these functions reads one inbox's rows through an index
-- (enable_seqscan = off, 004), so the plan never depends on the values
-- bound, and one made once per connection is as good as one per call.
ALTER FUNCTION vigil_refresh_work(text, bigint, integer, bigint, bigint, bigint)
  SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION vigil_ingest(text, bigint, text[], text[], text[])
  SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION vigil_events_in_play(text)
  SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION vigil_acquire(text, text, bigint, bigint, integer, bigint, bigint, bigint)
  SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION vigil_release(text, text, bigint, bigint, integer, bigint, bigint, bigint)
  SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION vigil_finish(text, text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint, text[], text[], bigint[], bigint, integer, bigint, bigint, bigint)
  SET plan_cache_mode = force_generic_plan;

-- 2. vigil_claim (R4, fenced by R3) as in 004, with the two repairs
-- (abandoned rows back to pending, exhausted ones dead) run only when
-- there is something to repair. An UPDATE that matches nothing still opens
-- every index of events; the flags cost one statement, read before the
-- lock as the early "nothing to claim" answer already was, and are read
-- again after it (another transaction may have changed the rows meanwhile).
-- The whole body is repeated because PL/pgSQL has no other way to change
-- one; it is the only one 008 rewrites: the finish's empty INSERTs were
-- also skipped at first, for no gain the benchmark could tell apart.
CREATE OR REPLACE FUNCTION vigil_claim(p_inbox text, p_holder text, p_gen bigint, p_now bigint,
                                       p_max_attempts integer, p_batch_limit integer,
                                       p_base bigint, p_max bigint, p_gap bigint)
RETURNS TABLE (id bigint, source text, source_id text, payload text, attempts integer)
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
  v_pending boolean;
  v_abandoned boolean;
  v_exhausted boolean;
BEGIN
  SELECT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending'),
         EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen)
    INTO v_pending, v_abandoned;
  IF NOT v_pending AND NOT v_abandoned THEN
    RETURN;
  END IF;

  PERFORM vigil_commit_without_flush();
  UPDATE inboxes SET write_seq = write_seq + 1 WHERE inbox_id = p_inbox RETURNING * INTO r;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  v_now := COALESCE(p_now, vigil_clock_ms());
  IF (r.holder = p_holder AND r.gen = p_gen AND r.lease_until >= v_now) IS NOT TRUE THEN
    RETURN;                                          -- R3: not this caller's lease
  END IF;

  -- Under the lock: what the repairs below would find.
  SELECT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen),
         EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending' AND attempts >= p_max_attempts)
    INTO v_abandoned, v_exhausted;

  IF v_abandoned THEN
    UPDATE events
    SET status = 'pending',
        error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing',
        last_error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing'
    WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen;
    v_exhausted := v_exhausted OR EXISTS (
      SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending' AND attempts >= p_max_attempts);
  END IF;

  IF v_exhausted THEN
    UPDATE events SET status = 'dead', error = 'too many attempts', finished_at = v_now
    WHERE inbox_id = p_inbox AND status = 'pending' AND attempts >= p_max_attempts;
  END IF;

  RETURN QUERY
  WITH retry AS (
    SELECT e.id FROM events e
    WHERE e.inbox_id = p_inbox AND e.status = 'pending' AND e.attempts > 0
      AND vigil_retry_ready_at(e.last_claim_at, e.attempts, p_base, p_max) <= v_now
    ORDER BY e.id LIMIT 1
  ), fresh AS (
    SELECT e.id FROM events e
    WHERE e.inbox_id = p_inbox AND e.status = 'pending' AND e.attempts = 0
      AND NOT EXISTS (SELECT 1 FROM retry)
    ORDER BY e.id LIMIT p_batch_limit
  )
  UPDATE events AS ev
  SET status = 'running', attempts = ev.attempts + 1, claim_gen = p_gen, last_claim_at = v_now
  WHERE ev.inbox_id = p_inbox AND ev.status = 'pending'
    AND ev.id IN (SELECT retry.id FROM retry UNION ALL SELECT fresh.id FROM fresh)
  RETURNING ev.id, ev.source, ev.source_id, ev.payload, ev.attempts;

  -- As in 004: a claim that took events leaves the work row as it was; one
  -- that took nothing may have killed or reset events.
  IF NOT FOUND THEN
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  END IF;
END $$;
