/**
 * The work table: per inbox, when it next needs a worker (`wake_at`) and a
 * dispatcher (`send_at`). It is what readyInboxes() and dispatchableInboxes()
 * read, so a pool's poll costs what is due, not one query per inbox.
 *
 * Unlike SQLite's ready index (a separate file, see docs/design/ready-index.md)
 * it lives in the same database, so every write transaction sets the exact
 * value before COMMIT, under the inbox's row lock: a crash can never leave
 * it stale, and writers of one inbox update it in the order they commit.
 */
import { DB_NOW_MS } from './connection.js';

// The rules that set a row are vigil_refresh_work (functions/work.sql), called at the end of
// every inbox transaction (inbox-tx.ts) and inside the one-statement operations (call.ts).

/**
 * Most overdue first. $1 is now from the app clock, NULL for the database's
 * (read once, as an InitPlan, so the index range stays usable).
 * SKIP LOCKED: pollers on several machines asking at the same moment get
 * different inboxes instead of all piling onto the first; the lease, not
 * this pick, is what keeps one run per inbox.
 */
export const READY_INBOXES = `
SELECT inbox_id FROM work WHERE wake_at <= (SELECT COALESCE($1::bigint, ${DB_NOW_MS}))
ORDER BY wake_at, inbox_id LIMIT $2
FOR NO KEY UPDATE SKIP LOCKED`;

export const DISPATCHABLE_INBOXES = `
SELECT inbox_id FROM work WHERE send_at <= (SELECT COALESCE($1::bigint, ${DB_NOW_MS}))
ORDER BY send_at, inbox_id LIMIT $2
FOR NO KEY UPDATE SKIP LOCKED`;
