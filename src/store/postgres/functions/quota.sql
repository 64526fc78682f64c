-- Quotas per inbox: engine/quota.ts's rule (admit), on the row vigil_ingest
-- has locked, at its now. Raises VG003 (errors.ts) with the refusal as its
-- message and now as its detail, so the whole ingest rolls back and
-- nothing is stored; returns when the events may be stored, after counting
-- them in the minute's window. Only new keys count (a duplicate is never
-- refused). The inbox's own `limits` setting overrides each limit given.
--
-- Pending events are counted from events_by_status, at most one past the
-- limit, and their bytes with octet_length, which reads a stored value's
-- size from its header without decompressing it: a check costs what the
-- inbox holds pending, bounded by its limit, and nothing for a drained inbox.
CREATE OR REPLACE FUNCTION vigil_check_quota(p_inbox text, p_now bigint, p_sources text[], p_source_ids text[], p_payloads text[],
                                             p_events bigint, p_bytes bigint, p_rate bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_new bigint;
  v_new_bytes bigint;
  v_own jsonb;
  v_max_events bigint;
  v_max_bytes bigint;
  v_max_rate bigint;
  v_pending bigint;
  v_pending_bytes bigint;
  v_window bigint := floor(p_now / 60000.0)::bigint;
  v_count bigint;
BEGIN
  SELECT count(*), COALESCE(sum(octet_length(k.payload)), 0) INTO v_new, v_new_bytes
  FROM unnest(p_sources, p_source_ids, p_payloads) AS k(source, source_id, payload)
  WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.inbox_id = p_inbox AND e.source = k.source AND e.source_id = k.source_id)
    AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.inbox_id = p_inbox AND t.source = k.source AND t.source_id = k.source_id);
  IF v_new = 0 THEN
    RETURN;
  END IF;

  SELECT s.json::jsonb -> 'limits' INTO v_own FROM inbox_settings s WHERE s.inbox_id = p_inbox;
  v_max_events := COALESCE((v_own ->> 'pendingEventsPerInbox')::bigint, p_events);
  v_max_bytes := COALESCE((v_own ->> 'pendingBytesPerInbox')::bigint, p_bytes);
  v_max_rate := COALESCE((v_own ->> 'eventsPerMinutePerInbox')::bigint, p_rate);

  SELECT count(*), COALESCE(sum(octet_length(p.payload)), 0) INTO v_pending, v_pending_bytes
  FROM (SELECT e.payload FROM events e WHERE e.inbox_id = p_inbox AND e.status IN ('pending', 'running') LIMIT v_max_events + 1) p;
  IF v_pending + v_new > v_max_events OR v_pending_bytes + v_new_bytes > v_max_bytes THEN
    RAISE EXCEPTION 'inbox_full' USING ERRCODE = 'VG003', DETAIL = p_now::text;
  END IF;

  SELECT CASE WHEN r.rate_window = v_window THEN r.rate_count ELSE 0 END INTO v_count FROM inbox_rate r WHERE r.inbox_id = p_inbox;
  v_count := COALESCE(v_count, 0);
  IF v_count + v_new > v_max_rate THEN
    RAISE EXCEPTION 'rate_limited' USING ERRCODE = 'VG003', DETAIL = p_now::text;
  END IF;
  INSERT INTO inbox_rate AS r (inbox_id, rate_window, rate_count) VALUES (p_inbox, v_window, v_count + v_new)
  ON CONFLICT (inbox_id) DO UPDATE SET rate_window = excluded.rate_window, rate_count = excluded.rate_count;
END $$;
