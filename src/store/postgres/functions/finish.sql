-- R3 (fencing), R5 (errors) and R6 (dead at once) (finish.ts): a run's
-- outcome and everything it keeps, in one transaction. Refused (false,
-- nothing changed) unless this holder still holds the lease in the
-- generation that claimed every one of p_ids, and they are all still
-- running. Refusing the whole call, rather than finishing whatever still
-- matches, means a finish retried after a lost response cannot queue its
-- messages twice, and a reply is never queued for an event that will run
-- again.
--   * p_error: the events go back to pending with the error (the claim's
--     backoff decides when they run again), or dead at once with p_dead
--     (a failure no retry can fix); nothing else is written.
--   * Success: the events are done, and the run's messages are queued in
--     their order, with the approvals it asks (R8), its session
--     (p_session_set: write p_session, NULL clears it) and its memory
--     (p_memory_values NULL at a key: delete it). Memory's total size per
--     inbox is checked after the change: over p_memory_limit, SQLSTATE VG001
--     rolls the whole finish back (postgres/errors.ts makes it memory_full).
--   * p_usage: the run's model usage (contract/usage.ts as JSON, or NULL),
--     recorded with any outcome once the fence holds.
--   * p_wake: a finish that queued messages adds 'outbox:<inbox>' to the
--     hints vigil_wake (ingest.sql) sends right after COMMIT. Adds, not
--     sets: the run steps of several inboxes may share one transaction
--     (postgres/step-group.ts), and each must be heard.
-- vigil_finish_locked is the rule itself, on an inbox whose row the caller
-- has locked and whose lease it has checked (false: not all of p_ids are
-- this generation's running events, nothing written): vigil_finish here,
-- and the run step that claims the next batch in the same transaction
-- (run-step.sql). Neither refreshes the work row; their callers do, once.
CREATE OR REPLACE FUNCTION vigil_finish_locked(p_inbox text, p_gen bigint, p_ids bigint[],
                                    p_error text, p_dead boolean, p_bodies text[], p_urgent boolean[],
                                    p_session_set boolean, p_session text,
                                    p_memory_keys text[], p_memory_values text[], p_memory_limit bigint,
                                    p_approval_ids text[], p_approval_actions text[], p_approval_expires_in bigint[], p_approval_remind_in bigint[],
                                    p_usage jsonb,
                                    p_now bigint, p_wake boolean,
                                    p_effect_keys text[], p_effect_states text[],
                                    p_intent_keys text[], p_intent_tools text[], p_intent_inputs text[], p_intent_hashes text[])
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_now bigint := p_now;
  v_total bigint;
BEGIN
  IF cardinality(p_ids) > 0 AND (
       SELECT count(*) FROM events
       WHERE inbox_id = p_inbox AND id = ANY (p_ids) AND status = 'running' AND claim_gen = p_gen
     ) <> cardinality(p_ids) THEN
    RETURN false;                                    -- R3: not all of them are this run's
  END IF;

  IF p_usage IS NOT NULL THEN                        -- with any outcome, past the fence: spent once, recorded once
    INSERT INTO usage (inbox_id, at, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, unpriced)
    VALUES (p_inbox, v_now, (p_usage->>'inputTokens')::bigint, (p_usage->>'outputTokens')::bigint,
            coalesce((p_usage->>'cacheReadTokens')::bigint, 0), coalesce((p_usage->>'cacheWriteTokens')::bigint, 0),
            (p_usage->>'costUsd')::double precision,
            coalesce((p_usage->>'unpriced')::boolean, false) OR p_usage->'costUsd' IS NULL);
  END IF;

  IF cardinality(p_effect_keys) > 0 THEN
    -- The ledger (contract/effects.ts): the calls this run started are
    -- settled with its finish, an error's too (a tool that threw failed it).
    UPDATE effects e SET state = s.state, settled_at = v_now
    FROM unnest(p_effect_keys, p_effect_states) AS s(key, state)
    WHERE e.inbox_id = p_inbox AND e.key = s.key AND e.state = 'started' AND e.gen = p_gen;
  END IF;

  IF p_error IS NOT NULL AND p_dead THEN
    UPDATE events SET status = 'dead', error = p_error, last_error = p_error, finished_at = v_now
    WHERE inbox_id = p_inbox AND id = ANY (p_ids) AND status = 'running' AND claim_gen = p_gen;
  ELSIF p_error IS NOT NULL THEN
    UPDATE events SET status = 'pending', error = p_error, last_error = p_error
    WHERE inbox_id = p_inbox AND id = ANY (p_ids) AND status = 'running' AND claim_gen = p_gen;
  ELSE
    UPDATE events SET status = 'done', error = NULL, finished_at = v_now
    WHERE inbox_id = p_inbox AND id = ANY (p_ids) AND status = 'running' AND claim_gen = p_gen;
    -- Each statement below runs only when the outcome has something for
    -- it: one that writes nothing still plans, locks and opens its table.
    IF cardinality(p_bodies) > 0 THEN
      -- Ids are drawn in the order of the SELECT: the messages keep their order.
      INSERT INTO outbox (inbox_id, body, urgent, created_at)
      SELECT p_inbox, m.body, m.urgent, v_now
      FROM unnest(p_bodies, p_urgent) WITH ORDINALITY AS m(body, urgent, n)
      ORDER BY m.n;
      IF p_wake THEN
        PERFORM set_config('vigil.wake', concat_ws(' ', nullif(current_setting('vigil.wake', true), ''), 'outbox:' || p_inbox), false);
      END IF;
    END IF;

    IF cardinality(p_approval_ids) > 0 THEN
      -- R8 as in requestApproval: an id that exists keeps its deadline.
      -- A reminder is due remind_in after the ask (NULL: none); the engine chose remind_in.
      INSERT INTO approvals (inbox_id, id, action, requested_at, expires_at, remind_at)
      SELECT p_inbox, a.id, a.action, v_now, v_now + a.expires_in, v_now + a.remind_in
      FROM unnest(p_approval_ids, p_approval_actions, p_approval_expires_in, p_approval_remind_in) AS a(id, action, expires_in, remind_in)
      ON CONFLICT (inbox_id, id) DO NOTHING;
    END IF;

    IF cardinality(p_intent_keys) > 0 THEN
      -- The ledger: calls asked about, intended under their approved key; one already there stays.
      INSERT INTO effects (inbox_id, key, tool, input, input_hash, state, intended_at)
      SELECT p_inbox, i.key, i.tool, i.input, i.hash, 'intended', v_now
      FROM unnest(p_intent_keys, p_intent_tools, p_intent_inputs, p_intent_hashes) AS i(key, tool, input, hash)
      ON CONFLICT (inbox_id, key) DO NOTHING;
    END IF;

    IF p_session_set AND p_session IS NULL THEN
      DELETE FROM sessions WHERE inbox_id = p_inbox;
    ELSIF p_session_set THEN
      INSERT INTO sessions (inbox_id, state, updated_at) VALUES (p_inbox, p_session, v_now)
      ON CONFLICT (inbox_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at;
    END IF;

    IF cardinality(p_memory_keys) > 0 THEN
      DELETE FROM memory m USING unnest(p_memory_keys, p_memory_values) AS c(key, value)
      WHERE m.inbox_id = p_inbox AND m.key = c.key AND c.value IS NULL;
      INSERT INTO memory (inbox_id, key, value, updated_at)
      SELECT p_inbox, c.key, c.value, v_now FROM unnest(p_memory_keys, p_memory_values) AS c(key, value)
      WHERE c.value IS NOT NULL
      ON CONFLICT (inbox_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at;
      SELECT coalesce(sum(octet_length(key) + octet_length(value)), 0) INTO v_total FROM memory WHERE inbox_id = p_inbox;
      IF v_total > p_memory_limit THEN
        RAISE EXCEPTION 'memory would be % bytes', v_total USING ERRCODE = 'VG001', DETAIL = v_total::text;
      END IF;
    END IF;
  END IF;
  RETURN true;
END $$;


CREATE OR REPLACE FUNCTION vigil_finish(p_inbox text, p_holder text, p_gen bigint, p_ids bigint[],
                             p_error text, p_dead boolean, p_bodies text[], p_urgent boolean[],
                             p_session_set boolean, p_session text,
                             p_memory_keys text[], p_memory_values text[], p_memory_limit bigint,
                             p_approval_ids text[], p_approval_actions text[], p_approval_expires_in bigint[], p_approval_remind_in bigint[],
                             p_usage jsonb, p_now bigint, p_wake boolean,
                             p_max_attempts integer, p_base bigint, p_max bigint, p_gap bigint,
                             p_effect_keys text[], p_effect_states text[],
                             p_intent_keys text[], p_intent_tools text[], p_intent_inputs text[], p_intent_hashes text[])
RETURNS boolean
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
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
  IF NOT vigil_finish_locked(p_inbox, p_gen, p_ids, p_error, p_dead, p_bodies, p_urgent, p_session_set, p_session,
                             p_memory_keys, p_memory_values, p_memory_limit,
                             p_approval_ids, p_approval_actions, p_approval_expires_in, p_approval_remind_in, p_usage, v_now, p_wake,
                             p_effect_keys, p_effect_states, p_intent_keys, p_intent_tools, p_intent_inputs, p_intent_hashes) THEN
    RETURN false;
  END IF;
  PERFORM vigil_refresh_work(p_inbox, v_now, p_max_attempts, p_base, p_max, p_gap);
  RETURN true;
END $$;
