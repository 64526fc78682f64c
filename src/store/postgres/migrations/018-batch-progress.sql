-- Which channels are done with the batch being sent (took it, or will never
-- take it), recorded as each one is: a crash or a failed channel then never
-- sends that batch again to a channel that took it (it was held in the
-- dispatcher's memory, so a crash resent it to every channel). One batch per
-- inbox is in flight at a time, so one row; `batch` names it
-- (engine/dispatch.ts), and progress recorded for another batch is ignored.
-- Cleared when the batch is sent; deleted with the inbox.
CREATE TABLE outbox_progress (
  inbox_id text COLLATE "C" PRIMARY KEY,
  batch    text NOT NULL,
  progress text NOT NULL                    -- JSON: { channels, failures }
);

-- A third kind of failure: 'uncertain', a channel that cannot know whether
-- its send landed (a timeout after the request went out), under at-most-once
-- delivery: kept for an operator to resend or drop.
ALTER TABLE outbox_failures DROP CONSTRAINT outbox_failures_kind_check;
ALTER TABLE outbox_failures ADD CONSTRAINT outbox_failures_kind_check CHECK (kind IN ('rejected', 'undeliverable', 'uncertain'));
