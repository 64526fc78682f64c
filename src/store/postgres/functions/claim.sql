-- R4, fenced by R3 (claim.ts): what one run claims. In order:
--   * rows left running by an older generation belong to a worker that lost
--     its lease: back to pending;
--   * pending rows with attempts >= max become dead ('too many attempts');
--   * the oldest retried event whose backoff has passed is claimed alone
--     (so it cannot take the healthy events of its first batch down with it
--     again); otherwise every never-tried event up to the batch limit,
--     oldest first.
-- Attempts are counted at claim, not at failure: a worker that crashes
-- never records a failure, so counting at failure would let a poison event
-- kill every worker forever.
-- Returns the claimed events (kind 'claimed') and the events this claim
-- parked as dead (kind 'dead'), which the engine reports (events:dead).
-- vigil_claim_locked is the rule itself, on an inbox whose row the caller
-- has locked and whose lease it has checked: vigil_claim here, and the run
-- steps that claim in the transaction of an acquire or a finish
-- (run-step.sql).
-- An inbox with no pending event and no event left running by an older
-- generation has nothing to claim, reset or kill whoever asks: that answer
-- (no rows) is given from the snapshot, without the lock, writing nothing.
-- The two repairs (abandoned rows back to pending, exhausted ones dead) run
-- only when a probe, read again under the lock, finds rows for them: an
-- UPDATE that matches nothing still opens every index of events.
CREATE OR REPLACE FUNCTION vigil_claim_locked(p_inbox text, p_gen bigint, p_now bigint, p_max_attempts integer,
                                              p_batch_limit integer, p_base bigint, p_max bigint)
RETURNS TABLE (kind text, id bigint, source text, source_id text, payload text, attempts integer, last_error text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_abandoned boolean;
  v_exhausted boolean;
  v_pending boolean;
BEGIN
  -- Paused for spend (engine/budget.ts): its events wait, untouched: no attempt counted, nothing made dead.
  IF EXISTS (SELECT 1 FROM inboxes WHERE inbox_id = p_inbox AND paused_until > p_now) THEN
    RETURN;
  END IF;
  -- Under the lock: what the repairs and the claim below would find.
  SELECT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen),
         EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending' AND attempts >= p_max_attempts),
         EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending')
    INTO v_abandoned, v_exhausted, v_pending;

  IF v_abandoned THEN
    UPDATE events
    SET status = 'pending',
        error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing',
        last_error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing'
    WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen;
    v_exhausted := v_exhausted OR EXISTS (
      SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending' AND attempts >= p_max_attempts);
    v_pending := true;
  END IF;

  IF v_exhausted THEN
    RETURN QUERY
    UPDATE events AS ev SET status = 'dead', error = 'too many attempts', finished_at = p_now
    WHERE ev.inbox_id = p_inbox AND ev.status = 'pending' AND ev.attempts >= p_max_attempts
    RETURNING 'dead'::text, ev.id, ev.source, ev.source_id, NULL::text, ev.attempts, ev.last_error;
  END IF;

  IF NOT v_pending THEN
    RETURN;                                          -- nothing to claim (the last batch's finish, say)
  END IF;
  RETURN QUERY
  WITH retry AS (
    SELECT e.id FROM events e
    WHERE e.inbox_id = p_inbox AND e.status = 'pending' AND e.attempts > 0
      AND vigil_retry_ready_at(e.last_claim_at, e.attempts, p_base, p_max) <= p_now
    ORDER BY e.id LIMIT 1
  ), fresh AS (
    SELECT e.id FROM events e
    WHERE e.inbox_id = p_inbox AND e.status = 'pending' AND e.attempts = 0
      AND NOT EXISTS (SELECT 1 FROM retry)
    ORDER BY e.id LIMIT p_batch_limit
  )
  UPDATE events AS ev
  SET status = 'running', attempts = ev.attempts + 1, claim_gen = p_gen, last_claim_at = p_now
  WHERE ev.inbox_id = p_inbox AND ev.status = 'pending'
    AND ev.id IN (SELECT retry.id FROM retry UNION ALL SELECT fresh.id FROM fresh)
  RETURNING 'claimed'::text, ev.id, ev.source, ev.source_id, ev.payload, ev.attempts, NULL::text;
END $$;

CREATE OR REPLACE FUNCTION vigil_claim(p_inbox text, p_holder text, p_gen bigint, p_now bigint,
                                       p_max_attempts integer, p_batch_limit integer,
                                       p_base bigint, p_max bigint, p_gap bigint)
RETURNS TABLE (kind text, id bigint, source text, source_id text, payload text, attempts integer, last_error text)
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
  v_pending boolean;
  v_abandoned boolean;
  v_claimed boolean := false;
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

  FOR kind, id, source, source_id, payload, attempts, last_error IN
    SELECT * FROM vigil_claim_locked(p_inbox, p_gen, v_now, p_max_attempts, p_batch_limit, p_base, p_max)
  LOOP
    v_claimed := v_claimed OR kind = 'claimed';
    RETURN NEXT;
  END LOOP;

  -- A claim that took events leaves the work row as it was: under a live
  -- lease the inbox's events are listed at until + 1 whichever of them are
  -- pending or running, as long as one is (and one is running now), and
  -- claiming touches neither the lease, the timers, the approvals nor the
  -- outbox. A claim that took nothing may have killed or reset events.
  IF NOT v_claimed THEN
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  END IF;
END $$;
