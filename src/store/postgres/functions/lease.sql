-- Whether the inbox has an event a lease decides about (R2, R4). Taking or
-- ending the lease of an inbox with no pending and no running event changes
-- nothing the work table shows (the lease only decides when events are
-- listed; timers, approvals and the outbox do not depend on it), so acquire
-- and release refresh the work row only when this is true: a worker's turn
-- on an idle inbox then reads one index instead of ten.
CREATE OR REPLACE FUNCTION vigil_events_in_play(p_inbox text) RETURNS boolean
LANGUAGE sql STABLE SET enable_seqscan = off SET plan_cache_mode = force_generic_plan
AS $$
  SELECT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending')
      OR EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running')
$$;

-- R2 (lease.ts): take or renew the lease. o_gen is the generation, or NULL
-- while another holder's lease is valid; o_renewed says the holder's own
-- valid lease was extended in the same generation; o_takeover says a new
-- generation began while events of an older one were still running (their
-- worker died or stalled). Renewing keeps the generation; any takeover,
-- even by the same holder after its lease lapsed, starts a new one, so a
-- worker that slept through its expiry can never pass the fence with its
-- old claim.
-- vigil_take_lease is the decision and its write, on the lease the caller
-- read from the row it has locked (r_holder, r_gen, r_until), at the
-- caller's now: vigil_acquire here, and the run step that claims in the
-- same transaction (run-step.sql).
CREATE OR REPLACE FUNCTION vigil_take_lease(p_inbox text, r_holder text, r_gen bigint, r_until bigint,
                                            p_holder text, p_now bigint, p_lease_ttl bigint,
                                            OUT o_gen bigint, OUT o_renewed boolean, OUT o_takeover boolean)
LANGUAGE plpgsql AS $$
BEGIN
  IF r_holder = p_holder AND r_until >= p_now THEN
    o_gen := r_gen;                                  -- renew
    o_renewed := true;
    o_takeover := false;
  ELSIF r_until IS NULL OR r_until < p_now THEN
    o_gen := r_gen + 1;                              -- take over
    o_renewed := false;
    o_takeover := EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running');
  ELSE
    RETURN;                                          -- another holder's lease is valid
  END IF;
  UPDATE inboxes SET holder = p_holder, gen = o_gen, lease_until = p_now + p_lease_ttl
  WHERE inbox_id = p_inbox;
END $$;

CREATE OR REPLACE FUNCTION vigil_acquire(p_inbox text, p_holder text, p_now bigint, p_lease_ttl bigint,
                              p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint,
                              OUT o_gen bigint, OUT o_renewed boolean, OUT o_takeover boolean)
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
BEGIN
  r := vigil_lock_inbox(p_inbox, true);
  v_now := COALESCE(p_now, vigil_clock_ms());
  SELECT * INTO o_gen, o_renewed, o_takeover FROM vigil_take_lease(p_inbox, r.holder, r.gen, r.lease_until, p_holder, v_now, p_lease_ttl);
  IF o_gen IS NULL THEN
    PERFORM vigil_commit_without_flush();            -- nothing changed: nothing to make durable
    RETURN;
  END IF;
  IF vigil_events_in_play(p_inbox) THEN
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  END IF;
END $$;

-- R2 (lease.ts): ends the lease now, so the next acquire takes over at once
-- with gen + 1. Only the holder of a valid lease in that generation may.
-- An inbox that was never written is not created.
CREATE OR REPLACE FUNCTION vigil_release(p_inbox text, p_holder text, p_gen bigint, p_now bigint,
                              p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint)
RETURNS boolean
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
BEGIN
  PERFORM vigil_commit_without_flush();
  UPDATE inboxes SET write_seq = write_seq + 1 WHERE inbox_id = p_inbox RETURNING * INTO r;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  v_now := COALESCE(p_now, vigil_clock_ms());
  IF (r.holder = p_holder AND r.gen = p_gen AND r.lease_until >= v_now) IS NOT TRUE THEN
    RETURN false;                                    -- R3: not this caller's lease
  END IF;

  UPDATE inboxes SET lease_until = v_now - 1 WHERE inbox_id = p_inbox;
  IF vigil_events_in_play(p_inbox) THEN
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  END IF;
  RETURN true;
END $$;
