-- Approvals that remind: an open approval gets one reminder at remind_at
-- (requested_at + a share of its life, decided by the engine), fired by
-- the scheduler like a one-off timer: an event under ('approval-reminder',
-- id) and reminded_at set in the same transaction, so it fires once.
-- NULL remind_at: no reminder was asked for (every approval before this).
ALTER TABLE approvals ADD COLUMN remind_at bigint;
ALTER TABLE approvals ADD COLUMN reminded_at bigint;
-- The work row and the scheduler read the next reminder due without walking the open approvals.
CREATE INDEX approvals_remind ON approvals (inbox_id, remind_at) WHERE answer IS NULL AND reminded_at IS NULL AND remind_at IS NOT NULL;
-- A run's finish asks its approvals with their reminder (p_approval_remind_in):
-- the three functions that take the approvals take one argument more, so the
-- ones 019 made (with p_usage) are dropped here; functions/ then creates the new ones, and
-- work.sql's wake includes the reminders due (functions/README.md).
DROP FUNCTION IF EXISTS vigil_finish_locked(text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint,
                                            text[], text[], bigint[], jsonb, bigint, boolean);
DROP FUNCTION IF EXISTS vigil_finish(text, text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint,
                                     text[], text[], bigint[], jsonb, bigint, boolean, integer, bigint, bigint, bigint);
DROP FUNCTION IF EXISTS vigil_finish_and_claim(text, text, bigint, bigint[], text, boolean, text[], boolean[], boolean, text, text[], text[], bigint,
                                               text[], text[], bigint[], jsonb, bigint, boolean, bigint, integer, integer, bigint, bigint, bigint);
