-- A run's last finish reads the inbox's events once (functions/run-step.sql):
-- vigil_finish_and_claim asks in one statement whether any event is
-- pending or running, and with neither it skips the claim, the run's end
-- (vigil_continue_or_end_run, p_may_run) looks for no running event, and
-- vigil_refresh_work (p_events) skips its four parts read from the events.
-- Both functions take one argument more, so the old ones are dropped here;
-- functions/ then creates the new ones (functions/README.md).
DROP FUNCTION IF EXISTS vigil_continue_or_end_run(text, boolean, bigint, bigint);
DROP FUNCTION IF EXISTS vigil_refresh_work(text, bigint, integer, bigint, bigint, bigint);
