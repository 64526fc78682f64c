-- An inbox paused for spend (engine/budget.ts), on its row: until when its
-- events wait (vigil_claim_locked and vigil_refresh_work compare
-- paused_until with now, functions/claim.sql and work.sql), why, and the
-- pause its person was last told of, so they hear of it once per period.
-- Written by a judgement after a finish that recorded usage, and after a
-- settings change (spend.ts).
ALTER TABLE inboxes ADD COLUMN paused_until bigint;
ALTER TABLE inboxes ADD COLUMN pause_reason text;
ALTER TABLE inboxes ADD COLUMN pause_noticed_until bigint;
