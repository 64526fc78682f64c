-- Quotas per inbox (engine/quota.ts): what the inbox holds against its
-- limits, on the meta row, so an ingest checks them with one read however
-- full the inbox is. The meta row, not a table of its own: most write
-- transactions rewrite its page already (write_seq), so the counts add no
-- page to theirs; an ingest into an inbox that is due already skips that
-- (inbox-db.ts), and there they cost one page of WAL per commit, shared by
-- every event of its group. Pending (not yet done or dead) events and
-- their payload bytes are kept by the triggers below on every status change
-- and delete, whoever makes it (a finish, a claim that parks dead events, a
-- redrive, a delete), and by the inserts themselves (ingest.ts, once per
-- statement; import.ts): a trigger on insert ran once per row and cost the
-- webhook path a third more CPU per event. The minute's count
-- of events from outside is the quota check's own (ingest.ts): Vigil's own
-- events are not counted.
ALTER TABLE meta ADD COLUMN pending_events INTEGER NOT NULL DEFAULT 0;
ALTER TABLE meta ADD COLUMN pending_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE meta ADD COLUMN rate_window INTEGER NOT NULL DEFAULT 0;   -- floor(now / 60000) of the minute counted
ALTER TABLE meta ADD COLUMN rate_count INTEGER NOT NULL DEFAULT 0;

UPDATE meta SET
  pending_events = (SELECT count(*) FROM events WHERE status IN ('pending', 'running')),
  pending_bytes = (SELECT coalesce(sum(octet_length(payload)), 0) FROM events WHERE status IN ('pending', 'running'))
WHERE one = 1;

-- pending <-> running changes nothing; only a row that enters or leaves the pair counts.
CREATE TRIGGER usage_on_status AFTER UPDATE OF status ON events
WHEN (OLD.status IN ('pending', 'running')) <> (NEW.status IN ('pending', 'running'))
BEGIN
  UPDATE meta SET
    pending_events = pending_events + CASE WHEN NEW.status IN ('pending', 'running') THEN 1 ELSE -1 END,
    pending_bytes = pending_bytes + CASE WHEN NEW.status IN ('pending', 'running') THEN octet_length(NEW.payload) ELSE -octet_length(OLD.payload) END
  WHERE one = 1;
END;

CREATE TRIGGER usage_on_delete AFTER DELETE ON events
WHEN OLD.status IN ('pending', 'running')
BEGIN
  UPDATE meta SET pending_events = pending_events - 1, pending_bytes = pending_bytes - octet_length(OLD.payload) WHERE one = 1;
END;
