/** An inbox's own settings on PostgreSQL (contract.ts, InboxSettings): the JSON in inbox_settings, what the SQL reads on the inbox row. */
import type { InboxSettings } from '../contract.js';
import type { CheckedSettings } from '../engine/validate/index.js';
import type { InboxTx } from './inbox-tx.js';

export const READ_SETTINGS = 'SELECT json FROM inbox_settings WHERE inbox_id = $1';

const UPSERT = `
INSERT INTO inbox_settings (inbox_id, json) VALUES ($1, $2)
ON CONFLICT (inbox_id) DO UPDATE SET json = excluded.json`;

// A pacing decision made under the old settings (quiet hours, a daily limit) no longer holds.
const COLUMNS = 'UPDATE inboxes SET gap_ms = $2, debounce_ms = $3, max_wait_ms = $4, not_before = NULL WHERE inbox_id = $1';

export async function readSettings(tx: InboxTx): Promise<InboxSettings> {
  const [row] = await tx.rows<{ json: string }>(READ_SETTINGS, [tx.inboxId]);
  return row === undefined ? {} : (JSON.parse(row.json) as InboxSettings);
}

export async function writeSettings(tx: InboxTx, settings: CheckedSettings): Promise<void> {
  await tx.run(UPSERT, [tx.inboxId, settings.json]);
  await tx.run(COLUMNS, [tx.inboxId, settings.gapMs, settings.debounceMs, settings.maxWaitMs]);
}
