/**
 * An inbox's model usage by period (contract/usage.ts): the backend sums
 * the rows per 15-minute slot of UTC (port.ts, usage), and this sums the
 * slots into the days and months of the inbox's `timeZone` setting. Every
 * UTC offset is a whole number of quarter hours, so a slot never straddles
 * two local days, DST changes included: grouping here, once, is exact on
 * both stores without teaching either SQL dialect about time zones.
 */
import type { InboxSettings, ModelUsageNow, UsageBucket } from '../contract.js';
import { localDay, nextLocalDay } from '../pacing.js';
import type { InboxPort, UsageSlot } from './port.js';
import type { CheckedUsageQuery } from './validate/index.js';

const DAY_MS = 86_400_000;
/** A window that holds the whole current local month whatever the time zone: 31 days and the widest UTC offset. */
const MONTH_BACK_MS = 32 * DAY_MS;

/** The usage of the query's window, per local day or month, oldest first; periods with none are left out. */
export async function usageByPeriod(port: InboxPort, settings: InboxSettings, query: CheckedUsageQuery): Promise<UsageBucket[]> {
  const { slots } = await port.usage(() => ({ from: query.from, to: query.to }));
  return [...sumByPeriod(slots, timeZoneOf(settings), query.by).values()];
}

/** stats().usage's addition: today's and this month's usage in the inbox's time zone, at the store's now. */
export async function usageNow(port: InboxPort, settings: InboxSettings): Promise<ModelUsageNow> {
  const { now, slots } = await port.usage((at) => ({ from: at - MONTH_BACK_MS, to: at + 1 }));
  const timeZone = timeZoneOf(settings);
  const day = localDay(now, timeZone);
  const month = day.slice(0, 7);
  const days = sumByPeriod(slots, timeZone, 'day');
  const months = sumByPeriod(slots, timeZone, 'month');
  return { today: days.get(day) ?? emptyBucket(day), month: months.get(month) ?? emptyBucket(month) };
}

function timeZoneOf(settings: InboxSettings): string {
  return settings.timeZone ?? 'UTC';
}

function sumByPeriod(slots: UsageSlot[], timeZone: string, by: 'day' | 'month'): Map<string, UsageBucket> {
  const buckets = new Map<string, UsageBucket>();
  for (const slot of slots) {
    const day = localDay(slot.slot, timeZone);
    const period = by === 'day' ? day : day.slice(0, 7);
    let bucket = buckets.get(period);
    if (bucket === undefined) buckets.set(period, (bucket = emptyBucket(period)));
    bucket.runs += slot.runs;
    bucket.inputTokens += slot.inputTokens;
    bucket.outputTokens += slot.outputTokens;
    bucket.cacheReadTokens += slot.cacheReadTokens;
    bucket.cacheWriteTokens += slot.cacheWriteTokens;
    bucket.costUsd += slot.costUsd;
    bucket.unpricedRuns += slot.unpricedRuns;
  }
  return buckets;
}

function emptyBucket(period: string): UsageBucket {
  return { period, runs: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unpricedRuns: 0 };
}

/**
 * The first instant of a local day ('YYYY-MM-DD') or month ('YYYY-MM') in
 * `timeZone` (where midnight does not exist that day, the first instant
 * there is); null for a text that names neither. What `--from 2026-12-01`
 * means to a person in that zone.
 */
export function periodStart(period: string, timeZone: string): number | null {
  const match = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(period);
  if (match === null) return null;
  const day = `${match[1]}-${match[2]}-${match[3] ?? '01'}`;
  // Before the day's start in every zone (offsets run from -12 to +14 hours): step to it.
  let at = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3] ?? '1')) - 15 * 3_600_000;
  if (Number.isNaN(at)) return null;
  for (let step = 0; step < 3; step++) {
    at = nextLocalDay(at, timeZone);
    if (localDay(at, timeZone) === day) return at;
  }
  return null; // no such day (2026-02-30)
}
