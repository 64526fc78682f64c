-- Every write transaction of an inbox starts here: it locks the inbox's
-- row (bumping write_seq, an UPDATE, so what the caller reads after it is
-- read after the lock is granted) and, with p_create, creates the row
-- first if the inbox was never written. Returns the row as locked, or a
-- row of NULLs when there is none and p_create is false.
-- Creating is INSERT ... ON CONFLICT DO NOTHING with no conflict target, so
-- both unique indexes arbitrate: two writers creating the same inbox at
-- once wait for each other and both end up on the one row, and an id that
-- differs from an existing inbox's only in case (inboxes_id_ignoring_case,
-- contract.ts) is refused with SQLSTATE VG002 rather than a second inbox.
CREATE OR REPLACE FUNCTION vigil_lock_inbox(p_inbox text, p_create boolean) RETURNS inboxes
LANGUAGE plpgsql SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  r inboxes%ROWTYPE;
BEGIN
  UPDATE inboxes SET write_seq = write_seq + 1 WHERE inbox_id = p_inbox RETURNING * INTO r;
  IF FOUND OR NOT p_create THEN
    RETURN r;
  END IF;
  INSERT INTO inboxes (inbox_id, created_at) VALUES (p_inbox, vigil_clock_ms())
  ON CONFLICT DO NOTHING
  RETURNING * INTO r;
  IF FOUND THEN
    RETURN r;
  END IF;
  -- Another writer created it meanwhile (now committed and visible), or a case twin exists.
  UPDATE inboxes SET write_seq = write_seq + 1 WHERE inbox_id = p_inbox RETURNING * INTO r;
  IF FOUND THEN
    RETURN r;
  END IF;
  RAISE EXCEPTION 'inbox % differs from an existing inbox only in case', p_inbox USING ERRCODE = 'VG002';
END $$;
