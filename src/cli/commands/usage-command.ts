/**
 * `vigil usage <inbox>`: what an inbox's runs spent on models, by the
 * person's days or months (inbox.usage, in the inbox's timeZone setting),
 * from the store directly, as `vigil status` reads it.
 */
import { Option, type Command } from 'commander';
import type { UsageBucket } from '../../store/contract.js';
import { localDay, periodStart } from '../../store/index.js';
import { UsageError } from '../exit-codes.js';
import { inboxCommand, onStore, type StoreFlags } from '../open-cli-store.js';
import { parseTime } from '../parse.js';
import { print, printJson, table } from '../print.js';

type UsageFlags = StoreFlags & { from?: string; to?: string; by: 'day' | 'month'; json?: boolean };

/** How far back a query goes without --from: this day and the 29 before it, or this month and the 11 before it. */
const DEFAULT_BACK = { day: 29, month: 11 } as const;

export function usageCommand(): Command {
  return inboxCommand('usage', "an inbox's model usage (tokens, cost, unpriced runs) by the person's day or month, in the inbox's time zone")
    .option('--from <when>', 'from this local day or month (2026-12-01, 2026-12), ISO time or epoch ms (default: 30 days or 12 months back)')
    .option('--to <when>', 'up to (not including) this local day or month, ISO time or epoch ms (default: now)')
    .addOption(new Option('--by <period>', 'sum by day or by month').choices(['day', 'month']).default('day'))
    .option('--json', 'print JSON')
    .action(
      onStore(async (store, inboxId: string, flags: UsageFlags) => {
        const inbox = store.inbox(inboxId);
        const timeZone = (await inbox.settings()).timeZone ?? 'UTC';
        const now = (await store.nextWake()).now;
        const to = flags.to === undefined ? now + 1 : when('--to', flags.to, timeZone);
        const from = flags.from === undefined ? defaultFrom(now, timeZone, flags.by) : when('--from', flags.from, timeZone);
        const buckets = await inbox.usage({ from, to, by: flags.by });
        if (flags.json === true) return printJson({ inbox: inboxId, timeZone, from, to, by: flags.by, usage: buckets });
        if (buckets.length === 0) return print(`no model usage recorded for ${inboxId} in that window (${timeZone})`);
        usageTable(buckets);
        const unpriced = buckets.reduce((sum, b) => sum + b.unpricedRuns, 0);
        if (unpriced > 0) print(`\n${unpriced} runs used a model with no known price: their cost is not in the totals (set "prices" in the config)`);
      }),
    );
}

function usageTable(buckets: UsageBucket[]): void {
  table(
    ['period', 'runs', 'input', 'output', 'cache read', 'cache write', 'cost (USD)', 'unpriced runs'],
    buckets.map((b) => [b.period, b.runs, b.inputTokens, b.outputTokens, b.cacheReadTokens, b.cacheWriteTokens, b.costUsd.toFixed(4), b.unpricedRuns]),
  );
}

/** A local day or month in the inbox's zone, else an ISO time or epoch ms. */
function when(flag: string, value: string, timeZone: string): number {
  const local = periodStart(value.trim(), timeZone);
  if (local !== null) return local;
  if (/^\d{4}-\d{2}(-\d{2})?$/.test(value.trim())) throw new UsageError(`${flag}: ${value} is no calendar day or month`);
  try {
    return parseTime(value);
  } catch (error) {
    throw new UsageError(`${flag}: ${(error as Error).message}`);
  }
}

function defaultFrom(now: number, timeZone: string, by: 'day' | 'month'): number {
  const [year, month, day] = localDay(now, timeZone).split('-').map(Number) as [number, number, number];
  const back = DEFAULT_BACK[by];
  const start = by === 'day' ? new Date(Date.UTC(year, month - 1, day - back)) : new Date(Date.UTC(year, month - 1 - back, 1));
  return periodStart(start.toISOString().slice(0, by === 'day' ? 10 : 7), timeZone)!;
}
