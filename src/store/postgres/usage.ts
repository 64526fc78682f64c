/**
 * The model usage rows of one PostgreSQL inbox (migration 019, written by
 * functions/finish.sql), read for the engine's periods (engine/usage.ts):
 * summed per 15-minute slot of a window, through usage_at (inbox_id, at).
 */
import type { UsageSlot, UsageWindow } from '../engine/port.js';
import { USAGE_SLOT_MS } from '../engine/port.js';

export const USAGE_SLOTS = `
SELECT at - at % ${USAGE_SLOT_MS} AS slot, count(*) AS runs,
  sum(input_tokens)::bigint AS "inputTokens", sum(output_tokens)::bigint AS "outputTokens",
  sum(cache_read_tokens)::bigint AS "cacheReadTokens", sum(cache_write_tokens)::bigint AS "cacheWriteTokens",
  COALESCE(sum(cost_usd), 0)::double precision AS "costUsd", count(*) FILTER (WHERE unpriced) AS "unpricedRuns"
FROM usage WHERE inbox_id = $1 AND at >= $2 AND at < $3
GROUP BY slot ORDER BY slot`;

export async function usageSlots(query: <T extends object>(sql: string, params: unknown[]) => Promise<T[]>, inboxId: string, { from, to }: UsageWindow): Promise<UsageSlot[]> {
  return query<UsageSlot>(USAGE_SLOTS, [inboxId, from, to]);
}
