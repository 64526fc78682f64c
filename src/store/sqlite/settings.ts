/** An inbox's own settings on its file (contract.ts, InboxSettings): the JSON, and the columns the wake query reads. */
import type { InboxSettings } from '../contract.js';
import type { CheckedSettings } from '../engine/validate/index.js';
import type { InboxDb } from './inbox-db.js';

const UPSERT = `
INSERT INTO settings (one, json, gap_ms, debounce_ms, max_wait_ms) VALUES (1, @json, @gapMs, @debounceMs, @maxWaitMs)
ON CONFLICT (one) DO UPDATE SET
  json = excluded.json, gap_ms = excluded.gap_ms, debounce_ms = excluded.debounce_ms, max_wait_ms = excluded.max_wait_ms`;

export function readSettings(c: InboxDb): InboxSettings {
  const json = c.stmt('SELECT json FROM settings WHERE one = 1').pluck().get() as string | undefined;
  return json === undefined ? {} : (JSON.parse(json) as InboxSettings);
}

/**
 * Writes the engine's checked settings; a pacing decision made under the
 * old ones (quiet hours, a daily limit) no longer holds, so the next
 * dispatch decides afresh.
 */
export function writeSettings(c: InboxDb, settings: CheckedSettings): void {
  c.stmt(UPSERT).run({ json: settings.json, gapMs: settings.gapMs, debounceMs: settings.debounceMs, maxWaitMs: settings.maxWaitMs });
  c.stmt('UPDATE outbox_pacing SET not_before = NULL WHERE one = 1').run();
}
