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
CREATE OR REPLACE FUNCTION vigil_commit_without_flush() RETURNS void
LANGUAGE sql AS $$ SELECT set_config('synchronous_commit', 'off', true) $$;
