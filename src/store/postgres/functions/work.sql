-- The work table (work.ts): sets the inbox's wake_at and send_at from its
-- rows, inside the transaction that changed them, under the inbox row lock.
-- Each part reads a partial index or one inbox's pending rows: the cost
-- follows the work in the inbox, not its history. Same rules as sqlite/wake.ts.
-- p_events false: the caller knows, under the lock, that the inbox has no
-- pending and no running event (a run's last finish), so the four parts
-- read from the events are NULL without reading them.
CREATE OR REPLACE FUNCTION vigil_refresh_work(p_inbox text, p_now bigint, p_max_attempts integer,
                                   p_base bigint, p_max bigint, p_gap bigint, p_events boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  WITH parts AS MATERIALIZED (                      -- each part read once, however often it is used below
    SELECT
      (SELECT received_at FROM events
        WHERE p_events AND inbox_id = p_inbox AND status = 'pending' AND attempts = 0 ORDER BY id LIMIT 1) AS fresh,
      (SELECT received_at FROM events                -- read only for a debounced inbox
        WHERE p_events AND i.debounce_ms IS NOT NULL AND inbox_id = p_inbox AND status = 'pending' AND attempts = 0
        ORDER BY id DESC LIMIT 1) AS newest,
      (SELECT min(CASE WHEN attempts >= p_max_attempts THEN 0
                       ELSE vigil_retry_ready_at(last_claim_at, attempts, p_base, p_max) END)
         FROM events WHERE p_events AND inbox_id = p_inbox AND status = 'pending' AND attempts > 0) AS retry,
      (SELECT i.lease_until + 1
        WHERE p_events AND EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running')) AS stalled,
      i.lease_until,
      i.last_paced_at,
      i.gap_ms,
      i.debounce_ms,
      i.max_wait_ms,
      i.not_before,
      i.paused_until,
      (SELECT min(due) FROM timers WHERE inbox_id = p_inbox AND NOT done) AS timer,
      (SELECT min(expires_at) FROM approvals WHERE inbox_id = p_inbox AND answer IS NULL) AS approval,
      -- An open approval's reminder not yet sent (approvals_remind, migration 019).
      (SELECT min(remind_at) FROM approvals
        WHERE inbox_id = p_inbox AND answer IS NULL AND reminded_at IS NULL AND remind_at IS NOT NULL) AS reminder,
      (SELECT min(created_at) FROM outbox
        WHERE inbox_id = p_inbox AND sent_at IS NULL AND reserved_by IS NULL AND urgent) AS urgent,
      (SELECT min(created_at) FROM outbox
        WHERE inbox_id = p_inbox AND sent_at IS NULL AND reserved_by IS NULL AND NOT urgent) AS paced,
      (SELECT min(reserved_until) + 1 FROM outbox
        WHERE inbox_id = p_inbox AND sent_at IS NULL AND reserved_by IS NOT NULL) AS inflight
    FROM inboxes i WHERE i.inbox_id = p_inbox
  ), due_parts AS (
    -- A debounced inbox (settings wake.debounceMs) is ready once its newest
    -- fresh event is debounce_ms old, or its oldest is max_wait_ms old.
    SELECT parts.*,
      LEAST(CASE WHEN debounce_ms IS NULL OR fresh IS NULL THEN fresh
                 ELSE LEAST(newest + debounce_ms, fresh + max_wait_ms) END,
            retry, stalled) AS unpaused
    FROM parts
  ), paused AS (
    -- Paused for spend (engine/budget.ts): events wait for the pause's end; timers still fire.
    SELECT due_parts.*,
      CASE WHEN unpaused IS NOT NULL AND paused_until > p_now THEN GREATEST(unpaused, paused_until) ELSE unpaused END AS claimable
    FROM due_parts
  )
  INSERT INTO work AS w (inbox_id, wake_at, send_at)
  SELECT p_inbox,
    -- While a lease is live only its holder may claim, and it claims again
    -- before it releases: events are not listed until until + 1. Timers and
    -- approvals (deadlines and reminders) are, the scheduler needs no lease. (LEAST skips NULLs = never.)
    LEAST(CASE WHEN claimable IS NOT NULL AND lease_until >= p_now THEN GREATEST(claimable, lease_until + 1)
               ELSE claimable END,
          timer, approval, reminder),
    -- A dispatch in flight blocks the next one until it is recorded or expires. Paced messages
    -- wait for the gap (the inbox's own, else the store's) and for quiet hours or a used-up
    -- daily limit (not_before). (GREATEST skips NULLs too.)
    COALESCE(inflight,
             LEAST(urgent, CASE WHEN paced IS NULL THEN NULL
                                ELSE GREATEST(paced, last_paced_at + COALESCE(gap_ms, p_gap), not_before) END))
  FROM paused
  ON CONFLICT (inbox_id) DO UPDATE SET wake_at = excluded.wake_at, send_at = excluded.send_at
  -- An unchanged row is not rewritten: no new row version, no index entries.
  WHERE (w.wake_at, w.send_at) IS DISTINCT FROM (excluded.wake_at, excluded.send_at);
END $$;

-- The work row after a run step that took the lease and claimed events
-- (vigil_acquire_and_claim): one of the inbox's events is now running
-- under a live lease, so whatever else is pending is listed at until + 1
-- (vigil_refresh_work's rule: claimable is at most "stalled", until + 1),
-- and nothing its send_at is made of (the outbox, the pacing) has changed.
-- So only the timers and the approvals are read again, not the ten parts
-- above. An inbox with no work row yet gets the whole refresh.
CREATE OR REPLACE FUNCTION vigil_refresh_work_claimed(p_inbox text, p_lease_until bigint, p_now bigint, p_max_attempts integer,
                                                      p_base bigint, p_max bigint, p_gap bigint) RETURNS void
LANGUAGE plpgsql AS $$                              -- its caller's settings hold (no SET: none to save and restore)
BEGIN
  -- One statement, and the EXISTS only when it changed nothing: each is a statement of its own to run.
  UPDATE work SET wake_at = due.wake_at
  FROM (SELECT LEAST(p_lease_until + 1,
                     (SELECT min(due) FROM timers WHERE inbox_id = p_inbox AND NOT done),
                     (SELECT min(expires_at) FROM approvals WHERE inbox_id = p_inbox AND answer IS NULL),
                     (SELECT min(remind_at) FROM approvals
                       WHERE inbox_id = p_inbox AND answer IS NULL AND reminded_at IS NULL AND remind_at IS NOT NULL)) AS wake_at) AS due
  WHERE inbox_id = p_inbox AND work.wake_at IS DISTINCT FROM due.wake_at;
  IF NOT FOUND THEN
    IF NOT EXISTS (SELECT 1 FROM work WHERE inbox_id = p_inbox) THEN
      PERFORM vigil_refresh_work(p_inbox, p_now, p_max_attempts, p_base, p_max, p_gap);
    END IF;
  END IF;
END $$;
