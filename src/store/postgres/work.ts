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
import { workParams } from './call.js';
import { DB_NOW_MS } from './connection.js';
import type { InboxTx } from './inbox-tx.js';

// The rules themselves are vigil_refresh_work (functions/work.sql),
// shared with the one-statement operations that refresh it in the same call.
const REFRESH_WORK = 'SELECT vigil_refresh_work($1, $2, $3, $4, $5, $6)';

/** Sets the inbox's work row from its rows, inside the transaction that changed them. */
export async function refreshWork(tx: InboxTx): Promise<void> {
  await tx.rows(REFRESH_WORK, [tx.inboxId, tx.now, ...workParams(tx.options)]);
}

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
