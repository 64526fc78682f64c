-- Approvals that remind: an open approval gets one reminder at remind_at
-- (requested_at + a share of its life, decided by the engine), fired by
-- the scheduler like a one-off timer: an event under ('approval-reminder',
-- id) and reminded_at set in the same transaction, so it fires once.
-- NULL remind_at: no reminder was asked for (every approval before this).
ALTER TABLE approvals ADD COLUMN remind_at INTEGER;
ALTER TABLE approvals ADD COLUMN reminded_at INTEGER;
-- The wake query and the scheduler read the next reminder due without walking the open approvals.
CREATE INDEX approvals_remind ON approvals (remind_at) WHERE answer IS NULL AND reminded_at IS NULL AND remind_at IS NOT NULL;
