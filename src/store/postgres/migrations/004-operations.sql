-- The hot operations as server-side functions, one round trip each: a call
-- is one statement, so one transaction (R10), with no BEGIN, lock, rule
-- statements, work refresh and COMMIT each crossing the network. Each
-- function is one rule; the TypeScript module named beside it validates the
-- input and calls it (docs/design/postgres-store.md, "One call per operation").
--
-- Common to all of them:
--   * The inbox row is locked first (an UPDATE of write_seq, or the INSERT ...
--     ON CONFLICT that also creates it), which serialises the inbox's writers.
--   * p_now is the injected clock's reading, taken when the call was made;
--     NULL means the database's clock decides (R13, the default), read once,
--     after the lock is granted, so it is never older than the commit the
--     call waited for.
--   * The lease is checked on the locked row, so the writes that follow need
--     no fence of their own: nobody can change the lease before COMMIT.
--   * A call that changes nothing leaves the work table as it was; one that
--     changes rows refreshes the inbox's work row before it returns.
-- Unqualified names resolve through the connection's search_path, which is
-- always the store's schema (connection.ts).
--
-- The functions run with enable_seqscan = off. Every statement in them reads
-- one inbox's rows through an index. Their plans are cached per connection,
-- and queue tables' statistics swing between empty and full: a plan made
-- while the outbox looked empty would scan the whole outbox on every call
-- once it holds thousands of rows.

-- R13: the database's clock in integer milliseconds.
CREATE FUNCTION vigil_clock_ms() RETURNS bigint
LANGUAGE sql VOLATILE PARALLEL SAFE
AS $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

-- R4: when a retried event may run again: its last claim plus
-- min(base * 2^(attempts-1), max), exact, no jitter. float8 holds every
-- product up to 2^53 exactly, and anything larger is above max anyway.
CREATE FUNCTION vigil_retry_ready_at(p_last_claim_at bigint, p_attempts integer, p_base bigint, p_max bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT p_last_claim_at + LEAST(p_base::float8 * 2::float8 ^ LEAST(p_attempts - 1, 40), p_max::float8)::bigint $$;

-- Claims and releases commit without waiting for their WAL flush (an
-- asynchronous commit: the WAL writer flushes it within a few hundred ms,
-- and any later durable commit flushes it first, WAL being one sequence).
-- Only a crash of the database server in that window can lose one, and
-- losing either is the same as it never having happened, which every rule
-- already allows for:
--   * a lost release: the lease runs until it expires (R2), as if the
--     worker had died before releasing;
--   * a lost claim: its events are pending again with the attempt not
--     counted, and the run's finish is refused (R3: they are not running
--     with its claim_gen), so no reply of it is queued and the events run
--     again, as after any lost lease. Attempts still count a *worker's*
--     crash (R4): that loses nothing the server has.
-- Everything else waits for the flush: ingest (R10: true means durable),
-- finish (a done event and its queued reply), acquire (a generation is
-- never handed out twice, so holder + gen stays a unique fence), timers,
-- approvals and dispatch.
CREATE FUNCTION vigil_commit_without_flush() RETURNS void
LANGUAGE sql AS $$ SELECT set_config('synchronous_commit', 'off', true) $$;

-- The work table (work.ts): sets the inbox's wake_at and send_at from its
-- rows, inside the transaction that changed them, under the inbox row lock.
-- Each part reads a partial index or one inbox's pending rows: the cost
-- follows the work in the inbox, not its history. Same rules as sqlite/wake.ts.
CREATE FUNCTION vigil_refresh_work(p_inbox text, p_now bigint, p_max_attempts integer,
                                   p_base bigint, p_max bigint, p_gap bigint) RETURNS void
LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  WITH parts AS MATERIALIZED (                      -- each part read once, however often it is used below
    SELECT
      (SELECT received_at FROM events
        WHERE inbox_id = p_inbox AND status = 'pending' AND attempts = 0 ORDER BY id LIMIT 1) AS fresh,
      (SELECT min(CASE WHEN attempts >= p_max_attempts THEN 0
                       ELSE vigil_retry_ready_at(last_claim_at, attempts, p_base, p_max) END)
         FROM events WHERE inbox_id = p_inbox AND status = 'pending' AND attempts > 0) AS retry,
      (SELECT i.lease_until + 1
        WHERE EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running')) AS stalled,
      i.lease_until,
      i.last_paced_at,
      (SELECT min(due) FROM timers WHERE inbox_id = p_inbox AND NOT done) AS timer,
      (SELECT min(expires_at) FROM approvals WHERE inbox_id = p_inbox AND answer IS NULL) AS approval,
      (SELECT min(created_at) FROM outbox
        WHERE inbox_id = p_inbox AND sent_at IS NULL AND reserved_by IS NULL AND urgent) AS urgent,
      (SELECT min(created_at) FROM outbox
        WHERE inbox_id = p_inbox AND sent_at IS NULL AND reserved_by IS NULL AND NOT urgent) AS paced,
      (SELECT min(reserved_until) + 1 FROM outbox
        WHERE inbox_id = p_inbox AND sent_at IS NULL AND reserved_by IS NOT NULL) AS inflight
    FROM inboxes i WHERE i.inbox_id = p_inbox
  ), due AS (
    SELECT parts.*, LEAST(fresh, retry, stalled) AS claimable FROM parts
  )
  INSERT INTO work AS w (inbox_id, wake_at, send_at)
  SELECT p_inbox,
    -- While a lease is live only its holder may claim, and it claims again
    -- before it releases: events are not listed until until + 1. Timers and
    -- approvals are, the scheduler needs no lease. (LEAST skips NULLs = never.)
    LEAST(CASE WHEN claimable IS NOT NULL AND lease_until >= p_now THEN GREATEST(claimable, lease_until + 1)
               ELSE claimable END,
          timer, approval),
    -- A dispatch in flight blocks the next one until it is recorded or expires.
    COALESCE(inflight,
             LEAST(urgent, CASE WHEN paced IS NULL THEN NULL ELSE GREATEST(paced, last_paced_at + p_gap) END))
  FROM due
  ON CONFLICT (inbox_id) DO UPDATE SET wake_at = excluded.wake_at, send_at = excluded.send_at
  -- An unchanged row is not rewritten: no new row version, no index entries.
  WHERE (w.wake_at, w.send_at) IS DISTINCT FROM (excluded.wake_at, excluded.send_at);
END $$;

-- R1 (ingest.ts): each (source, sourceId) is stored once per inbox, by the
-- unique key (INSERT ... ON CONFLICT DO NOTHING), never by a read-then-write.
-- Returns the keys that were stored; the caller matches them to its events.
--   1. If every key is already there, they are all duplicates: a stored key
--      is never deleted, so the answer is final, and nothing is written (no
--      lock, no WAL, no notification).
--   2. Otherwise create or lock the inbox row and read "now" after the lock,
--   3. insert the events, the first of equal keys winning,
--   4. lower the inbox's wake time in the work table (never raise it: while
--      a lease is live, fresh events wait for until + 1), and
--   5. leave the inbox id for vigil_wake, which the caller runs right after
--      this transaction (see there).
-- Step 4 happens under the row lock, so it never interleaves with another
-- transaction's exact refresh of the same work row.
CREATE FUNCTION vigil_ingest(p_inbox text, p_now bigint, p_sources text[], p_source_ids text[],
                             p_payloads text[])
RETURNS TABLE (source text, source_id text)
LANGUAGE plpgsql SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
  v_until bigint;
  v_now bigint;
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM unnest(p_sources, p_source_ids) AS k(source, source_id)
    WHERE NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.inbox_id = p_inbox AND e.source = k.source AND e.source_id = k.source_id)
  ) THEN
    RETURN;
  END IF;

  INSERT INTO inboxes AS i (inbox_id, created_at) VALUES (p_inbox, vigil_clock_ms())
  ON CONFLICT (inbox_id) DO UPDATE SET write_seq = i.write_seq + 1
  RETURNING i.lease_until INTO v_until;
  v_now := COALESCE(p_now, vigil_clock_ms());

  RETURN QUERY
  INSERT INTO events AS ev (inbox_id, source, source_id, payload, received_at)
  SELECT p_inbox, e.source, e.source_id, e.payload, v_now
  FROM unnest(p_sources, p_source_ids, p_payloads) WITH ORDINALITY AS e(source, source_id, payload, n)
  ORDER BY e.n
  ON CONFLICT (inbox_id, source, source_id) DO NOTHING
  RETURNING ev.source, ev.source_id;

  IF FOUND THEN
    INSERT INTO work AS w (inbox_id, wake_at)
    VALUES (p_inbox, CASE WHEN v_until >= v_now THEN v_until + 1 ELSE v_now END)
    ON CONFLICT (inbox_id) DO UPDATE SET wake_at = LEAST(w.wake_at, excluded.wake_at)
    WHERE w.wake_at IS NULL OR w.wake_at > excluded.wake_at;
    -- Session-level, but transactional: a rollback takes it back.
    PERFORM set_config('vigil.wake', p_inbox, false);
  END IF;
END $$;

-- The wake-up hint after an ingest: pg_notify(channel, inbox) if the
-- ingest just before it on this connection stored an event (it left the
-- inbox id in the session setting vigil.wake), else nothing. The caller
-- sends it pipelined behind vigil_ingest, in the same round trip, as a
-- transaction of its own: it runs only after the ingest committed, and
-- never for one that rolled back or stored nothing.
-- Why not notify inside the ingest's transaction: PostgreSQL serialises
-- the commits of every transaction that notifies (one queue lock, held
-- until the commit is on disk), so concurrent ingests could no longer share
-- a WAL flush. This transaction writes no WAL and waits for no flush.
CREATE FUNCTION vigil_wake(p_channel text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_inbox text := current_setting('vigil.wake', true);
BEGIN
  IF v_inbox <> '' THEN
    PERFORM set_config('vigil.wake', '', false);
    PERFORM pg_notify(p_channel, v_inbox);
  END IF;
END $$;

-- Whether the inbox has an event a lease decides about (R2, R4). Taking or
-- ending the lease of an inbox with no pending and no running event changes
-- nothing the work table shows (the lease only decides when events are
-- listed; timers, approvals and the outbox do not depend on it), so acquire
-- and release refresh the work row only when this is true: a worker's turn
-- on an idle inbox then reads one index instead of ten.
CREATE FUNCTION vigil_events_in_play(p_inbox text) RETURNS boolean
LANGUAGE sql STABLE SET enable_seqscan = off
AS $$
  SELECT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending')
      OR EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running')
$$;

-- R2 (lease.ts): take or renew the lease; returns the generation, or NULL
-- while another holder's lease is valid. Renewing keeps the generation; any
-- takeover, even by the same holder after its lease lapsed, starts a new
-- one, so a worker that slept through its expiry can never pass the fence
-- with its old claim.
CREATE FUNCTION vigil_acquire(p_inbox text, p_holder text, p_now bigint, p_lease_ttl bigint,
                              p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint)
RETURNS bigint
LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
  v_gen bigint;
BEGIN
  INSERT INTO inboxes AS i (inbox_id, created_at) VALUES (p_inbox, vigil_clock_ms())
  ON CONFLICT (inbox_id) DO UPDATE SET write_seq = i.write_seq + 1
  RETURNING i.* INTO r;
  v_now := COALESCE(p_now, vigil_clock_ms());

  IF r.holder = p_holder AND r.lease_until >= v_now THEN
    v_gen := r.gen;                                  -- renew
  ELSIF r.lease_until IS NULL OR r.lease_until < v_now THEN
    v_gen := r.gen + 1;                              -- take over
  ELSE
    PERFORM vigil_commit_without_flush();            -- nothing changed: nothing to make durable
    RETURN NULL;                                     -- another holder's lease is valid
  END IF;

  UPDATE inboxes SET holder = p_holder, gen = v_gen, lease_until = v_now + p_lease_ttl
  WHERE inbox_id = p_inbox;
  IF vigil_events_in_play(p_inbox) THEN
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  END IF;
  RETURN v_gen;
END $$;

-- R2 (lease.ts): ends the lease now, so the next acquire takes over at once
-- with gen + 1. Only the holder of a valid lease in that generation may.
-- An inbox that was never written is not created.
CREATE FUNCTION vigil_release(p_inbox text, p_holder text, p_gen bigint, p_now bigint,
                              p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint)
RETURNS boolean
LANGUAGE plpgsql SET enable_seqscan = off AS $$
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
-- An inbox with no pending event and no event left running by an older
-- generation has nothing to claim, reset or kill whoever asks: that answer
-- (no rows) is given from the snapshot, without the lock, writing nothing.
CREATE FUNCTION vigil_claim(p_inbox text, p_holder text, p_gen bigint, p_now bigint,
                            p_max_attempts integer, p_batch_limit integer,
                            p_base bigint, p_max bigint, p_gap bigint)
RETURNS TABLE (id bigint, source text, source_id text, payload text, attempts integer)
LANGUAGE plpgsql SET enable_seqscan = off AS $$
#variable_conflict use_column
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'pending')
     AND NOT EXISTS (SELECT 1 FROM events WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen) THEN
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

  UPDATE events
  SET status = 'pending',
      error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing',
      last_error = 'abandoned: generation ' || claim_gen || ' lost its lease before finishing'
  WHERE inbox_id = p_inbox AND status = 'running' AND claim_gen < p_gen;

  UPDATE events SET status = 'dead', error = 'too many attempts', finished_at = v_now
  WHERE inbox_id = p_inbox AND status = 'pending' AND attempts >= p_max_attempts;

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

  -- A claim that took events leaves the work row as it was: under a live
  -- lease the inbox's events are listed at until + 1 whichever of them are
  -- pending or running, as long as one is (and one is running now), and
  -- claiming touches neither the lease, the timers, the approvals nor the
  -- outbox. A claim that took nothing may have killed or reset events.
  IF NOT FOUND THEN
    PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  END IF;
END $$;

-- R3 (fencing) and R5 (errors) (finish.ts): a run's outcome and its
-- messages in one transaction. Refused (false, nothing changed) unless this
-- holder still holds the lease in the generation that claimed every one of
-- p_ids, and they are all still running. Refusing the whole call, rather
-- than finishing whatever still matches, means a finish retried after a
-- lost response cannot queue its messages twice, and a reply is never
-- queued for an event that will run again. With p_error the events go back
-- to pending with the error (the claim's backoff decides when they run
-- again) and no message is queued. Messages keep their order.
CREATE FUNCTION vigil_finish(p_inbox text, p_holder text, p_gen bigint, p_ids bigint[],
                             p_error text, p_bodies text[], p_urgent boolean[], p_now bigint,
                             p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint)
RETURNS boolean
LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
  r inboxes%ROWTYPE;
  v_now bigint;
BEGIN
  UPDATE inboxes SET write_seq = write_seq + 1 WHERE inbox_id = p_inbox RETURNING * INTO r;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  v_now := COALESCE(p_now, vigil_clock_ms());
  IF (r.holder = p_holder AND r.gen = p_gen AND r.lease_until >= v_now) IS NOT TRUE THEN
    RETURN false;                                    -- R3: not this caller's lease
  END IF;
  IF cardinality(p_ids) > 0 AND (
       SELECT count(*) FROM events
       WHERE inbox_id = p_inbox AND id = ANY (p_ids) AND status = 'running' AND claim_gen = p_gen
     ) <> cardinality(p_ids) THEN
    RETURN false;                                    -- R3: not all of them are this run's
  END IF;

  IF p_error IS NOT NULL THEN
    UPDATE events SET status = 'pending', error = p_error, last_error = p_error
    WHERE inbox_id = p_inbox AND id = ANY (p_ids) AND status = 'running' AND claim_gen = p_gen;
  ELSE
    UPDATE events SET status = 'done', error = NULL, finished_at = v_now
    WHERE inbox_id = p_inbox AND id = ANY (p_ids) AND status = 'running' AND claim_gen = p_gen;
    -- Ids are drawn in the order of the SELECT: the messages keep their order.
    INSERT INTO outbox (inbox_id, body, urgent, created_at)
    SELECT p_inbox, m.body, m.urgent, v_now
    FROM unnest(p_bodies, p_urgent) WITH ORDINALITY AS m(body, urgent, n)
    ORDER BY m.n;
  END IF;
  PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  RETURN true;
END $$;
