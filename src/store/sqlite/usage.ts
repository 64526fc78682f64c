/**
 * The model usage rows of one inbox file (migration 012, written by
 * finish.ts), read for the engine's periods (engine/usage.ts): summed per
 * 15-minute slot of a window, through the index on `at`.
 */
import type { UsageSlot, UsageWindow } from '../engine/port.js';
import { USAGE_SLOT_MS } from '../engine/port.js';
import type { InboxDb } from './inbox-db.js';

const SLOTS = `
SELECT at - at % ${USAGE_SLOT_MS} AS slot, count(*) AS runs,
  sum(input_tokens) AS inputTokens, sum(output_tokens) AS outputTokens,
  sum(cache_read_tokens) AS cacheReadTokens, sum(cache_write_tokens) AS cacheWriteTokens,
  total(cost_usd) AS costUsd, sum(unpriced) AS unpricedRuns
FROM usage WHERE at >= ? AND at < ?
GROUP BY slot ORDER BY slot`;

export function usageSlots(c: InboxDb, { from, to }: UsageWindow): UsageSlot[] {
  return c.stmt(SLOTS).all(from, to) as UsageSlot[];
}
