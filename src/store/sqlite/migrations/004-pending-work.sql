-- Pending events by attempts: the claim's retry/dead-letter steps and the
-- wake query read only the events they may act on, not the whole backlog.
CREATE INDEX events_pending_work ON events (status, attempts, id);
