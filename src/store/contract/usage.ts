/**
 * The store contract, part: what a run's model calls used. Agents report it
 * (src/agent/usage.ts); the run's event (`run:finished`, ../../events.ts)
 * carries it on. Here, below both, as decisions.ts is.
 */

/**
 * What a run's model calls used, in one shape for every model: tokens in
 * and out, the prompt cache's reads and writes, and the cost in US dollars
 * when the model's API reports one. Agents report it (Model.step, the
 * adapters, ctx.recordUsage); the runtime hands it on with the run's end.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /**
   * The cost in US dollars: the model's own figure where its API gives one,
   * else from the price table (src/agent/prices.ts). Absent: no price is
   * known for any of these tokens.
   */
  costUsd?: number;
  /** True when some of the tokens had no known price: `costUsd` covers only the rest. */
  unpriced?: boolean;
  /**
   * The model's id as its API names it (`claude-sonnet-4-5-20250929`,
   * `gpt-4o`): what a step is priced by (src/agent/prices.ts) when the API
   * gives no cost. Not kept in the store; a sum of several models has none.
   */
  model?: string;
}

/**
 * Which recorded usage `Inbox.usage` reads: the runs finished in
 * [from, to) (ms), summed per day or month of the inbox's `timeZone`
 * setting (default UTC). At most 400 days by day, 1,100 days by month.
 */
export interface UsageQuery {
  from: number;
  to: number;
  /** Default 'day'. */
  by?: 'day' | 'month';
}

/** The usage recorded in one local day or month: a sum of its runs' rows. */
export interface UsageBucket {
  /** The inbox's local day ('YYYY-MM-DD') or month ('YYYY-MM'). */
  period: string;
  /** Runs that recorded usage (a run that reported none, or all zero, records no row). */
  runs: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The priced part, in US dollars; 0 when nothing was priced. */
  costUsd: number;
  /** Runs with tokens no price was known for: their cost is missing from `costUsd`. */
  unpricedRuns: number;
}

/** What `stats().usage` adds: the model usage of today and of this month, in the inbox's time zone. */
export interface ModelUsageNow {
  today: UsageBucket;
  month: UsageBucket;
}
