-- R1 (ingest.ts): each (source, sourceId) is stored once per inbox, by the
-- unique key (INSERT ... ON CONFLICT DO NOTHING), never by a read-then-write,
-- and a key whose event was pruned stays refused by its tombstone.
--
-- vigil_insert_events is that insert, for every path that stores events
-- (vigil_ingest below; timer and approval events in inbox transactions).
-- Returns the keys it stored. A prune (prune.ts) does not take the inbox's
-- write lock, so that ingest never waits behind a batch of deletes; it moves
-- a key from events to tombstones in one transaction. The insert's own
-- tombstone check reads the snapshot its statement began with, and an
-- insert of a key the prune is deleting waits on that key's unique index
-- entry, then goes in once the prune commits. So the keys just stored are
-- looked up in the tombstones again, in a statement of its own (a fresh
-- snapshot, which sees that prune's commit), and any found is taken back.
-- The look-up is one index probe per stored key; the taking back is rare.
CREATE OR REPLACE FUNCTION vigil_insert_events(p_inbox text, p_now bigint, p_sources text[], p_source_ids text[], p_payloads text[])
RETURNS TABLE (source text, source_id text)
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  v_sources text[];
  v_source_ids text[];
BEGIN
  WITH stored AS (
    INSERT INTO events AS ev (inbox_id, source, source_id, payload, received_at)
    SELECT p_inbox, e.source, e.source_id, e.payload, p_now
    FROM unnest(p_sources, p_source_ids, p_payloads) WITH ORDINALITY AS e(source, source_id, payload, n)
    WHERE NOT EXISTS (SELECT 1 FROM tombstones t
                      WHERE t.inbox_id = p_inbox AND t.source = e.source AND t.source_id = e.source_id)
    ORDER BY e.n
    ON CONFLICT (inbox_id, source, source_id) DO NOTHING
    RETURNING ev.source, ev.source_id
  )
  SELECT array_agg(s.source), array_agg(s.source_id) INTO v_sources, v_source_ids FROM stored s;
  IF v_sources IS NULL THEN
    RETURN;
  END IF;

  -- Taken back by key, as they were stored: until this transaction ends, each key is this one's.
  IF EXISTS (SELECT 1 FROM unnest(v_sources, v_source_ids) AS k(source, source_id)
             JOIN tombstones t ON t.inbox_id = p_inbox AND t.source = k.source AND t.source_id = k.source_id) THEN
    DELETE FROM events e USING tombstones t
    WHERE t.inbox_id = p_inbox AND e.inbox_id = p_inbox AND e.source = t.source AND e.source_id = t.source_id
      AND (e.source, e.source_id) IN (SELECT * FROM unnest(v_sources, v_source_ids));
    RETURN QUERY SELECT e.source, e.source_id FROM events e
    WHERE e.inbox_id = p_inbox AND (e.source, e.source_id) IN (SELECT * FROM unnest(v_sources, v_source_ids));
    RETURN;
  END IF;
  RETURN QUERY SELECT k.source, k.source_id FROM unnest(v_sources, v_source_ids) AS k(source, source_id);
END $$;

-- vigil_ingest, the hot path of R1, as one statement:
--   1. If every key is already there (as an event or a tombstone), they are
--      all duplicates: prune moves a key from events to tombstones in one
--      transaction, so one snapshot sees it in one or the other, and the
--      answer is final. Nothing is written (no lock, no WAL, no notification).
--   2. Otherwise create or lock the inbox row and read "now" after the lock,
--      and with a quota, check it (functions/quota.sql),
--   3. insert the events, the first of equal keys winning (above),
--   4. lower the inbox's wake time in the work table (never raise it: while
--      a lease is live, fresh events wait for until + 1; a debounced inbox,
--      whose wake a new event moves later, gets the whole refresh), and
--   5. leave 'work:<inbox>' for vigil_wake, which the caller runs right
--      after this transaction (see there).
-- Step 4 happens under the row lock, so it never interleaves with another
-- transaction's exact refresh of the same work row.
CREATE OR REPLACE FUNCTION vigil_ingest(p_inbox text, p_now bigint, p_sources text[], p_source_ids text[],
                             p_payloads text[], p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint,
                             p_quota_events bigint, p_quota_bytes bigint, p_quota_rate bigint)
RETURNS TABLE (source text, source_id text)
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
  v_until bigint;
  v_debounce bigint;
  v_paused bigint;
  v_now bigint;
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM unnest(p_sources, p_source_ids) AS k(source, source_id)
    WHERE NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.inbox_id = p_inbox AND e.source = k.source AND e.source_id = k.source_id)
      AND NOT EXISTS (SELECT 1 FROM tombstones t
                      WHERE t.inbox_id = p_inbox AND t.source = k.source AND t.source_id = k.source_id)
  ) THEN
    RETURN;
  END IF;

  SELECT lease_until, debounce_ms, paused_until INTO v_until, v_debounce, v_paused FROM vigil_lock_inbox(p_inbox, true);
  v_now := COALESCE(p_now, vigil_clock_ms());
  -- An event from outside with a quota (functions/quota.sql): refused, the whole call rolls back.
  IF p_quota_events IS NOT NULL THEN
    PERFORM vigil_check_quota(p_inbox, v_now, p_sources, p_source_ids, p_payloads, p_quota_events, p_quota_bytes, p_quota_rate);
  END IF;

  RETURN QUERY SELECT * FROM vigil_insert_events(p_inbox, v_now, p_sources, p_source_ids, p_payloads);

  IF FOUND AND (v_debounce IS NOT NULL OR v_paused > v_now) THEN
    -- A new event moves a debounced inbox's wake later, and waits out a pause for spend
    -- (engine/budget.ts): the whole rule, not the lowering below.
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
    PERFORM set_config('vigil.wake', 'work:' || p_inbox, false);
  ELSIF FOUND THEN
    INSERT INTO work AS w (inbox_id, wake_at)
    VALUES (p_inbox, CASE WHEN v_until >= v_now THEN v_until + 1 ELSE v_now END)
    ON CONFLICT (inbox_id) DO UPDATE SET wake_at = LEAST(w.wake_at, excluded.wake_at)
    WHERE w.wake_at IS NULL OR w.wake_at > excluded.wake_at;
    -- Session-level, but transactional: a rollback takes it back.
    PERFORM set_config('vigil.wake', 'work:' || p_inbox, false);
  END IF;
END $$;

-- The wake-up hints after an ingest or a finish: pg_notify(channel, hint)
-- for each hint the transaction just before it on this connection left in
-- the session setting vigil.wake ('work:<inbox>' for stored events,
-- 'outbox:<inbox>' for queued messages; several, space-separated, when
-- the run steps of several inboxes shared it), else nothing. The caller
-- sends it pipelined behind vigil_ingest, in the same round trip, as a
-- transaction of its own: it runs only after the ingest committed, and
-- never for one that rolled back or stored nothing.
-- Why not notify inside the ingest's transaction: PostgreSQL serialises
-- the commits of every transaction that notifies (one queue lock, held
-- until the commit is on disk), so concurrent ingests could no longer share
-- a WAL flush. This transaction writes no WAL and waits for no flush.
CREATE OR REPLACE FUNCTION vigil_wake(p_channel text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_hint text := current_setting('vigil.wake', true);
BEGIN
  IF v_hint <> '' THEN
    PERFORM set_config('vigil.wake', '', false);
    PERFORM pg_notify(p_channel, hint) FROM unnest(string_to_array(v_hint, ' ')) AS hint;
  END IF;
END $$;
