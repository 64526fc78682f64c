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
}
