/**
 * What a model's tokens cost, in one place: the price a run's usage is
 * recorded with when the model's API gives no cost of its own (the Agent
 * SDK does; the Messages API and the AI SDK's providers do not). Prices are
 * USD per million tokens, per model id. The service's config `prices`
 * overrides or adds to this table; a model in neither records its tokens
 * with no cost (the dashboard then says the inbox has unpriced usage).
 *
 * The figures are the providers' published list prices (anthropic.com and
 * openai.com pricing pages) as of November 2025 (PRICES_AS_OF): standard
 * tier, no batch discount, Anthropic's cache writes at the 5-minute rate.
 * They change: an operator who is billed otherwise sets `prices`.
 */
import type { Usage } from '../store/contract.js';

/** One model's list price, USD per million tokens. An absent cache price is the input price. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok?: number;
  cacheWritePerMTok?: number;
}

/** Model id → price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** When the built-in figures were taken from the providers' pricing pages. */
export const PRICES_AS_OF = '2025-11';

const OPUS_4: ModelPrice = { inputPerMTok: 15, outputPerMTok: 75, cacheReadPerMTok: 1.5, cacheWritePerMTok: 18.75 };
const SONNET: ModelPrice = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

export const PRICES: PriceTable = {
  // Anthropic
  'claude-opus-4-5': { inputPerMTok: 5, outputPerMTok: 25, cacheReadPerMTok: 0.5, cacheWritePerMTok: 6.25 },
  'claude-opus-4-1': OPUS_4,
  'claude-opus-4': OPUS_4,
  'claude-sonnet-4-5': SONNET,
  'claude-sonnet-4': SONNET,
  'claude-3-7-sonnet': SONNET,
  'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4, cacheReadPerMTok: 0.08, cacheWritePerMTok: 1 },
  // OpenAI: cached input is the cache read; writing the cache costs nothing extra (the input price).
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10, cacheReadPerMTok: 0.125 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2, cacheReadPerMTok: 0.025 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4, cacheReadPerMTok: 0.005 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6, cacheReadPerMTok: 0.1 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10, cacheReadPerMTok: 1.25 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6, cacheReadPerMTok: 0.075 },
  o3: { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4, cacheReadPerMTok: 0.275 },
};

/**
 * The ids a model id is looked up by, most specific first: the id itself;
 * without a provider's prefix (`openai/gpt-4o`, as a gateway names it);
 * without a dated or `-latest` suffix (`claude-sonnet-4-5-20250929`,
 * `gpt-4o-2024-08-06`, `claude-3-5-haiku-latest`), so a snapshot costs what
 * its model does. Never a looser prefix: `gpt-4o-mini` is not `gpt-4o`.
 */
export function priceKeys(model: string): string[] {
  const bare = model.slice(model.lastIndexOf('/') + 1);
  const undated = bare.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
  return [...new Set([model, bare, undated])];
}

/** The price of `model`: the config's `overrides` first, then the built-in table; undefined when neither knows it. */
export function priceOf(model: string, overrides: PriceTable = {}): ModelPrice | undefined {
  const keys = priceKeys(model);
  for (const table of [overrides, PRICES]) {
    for (const key of keys) if (Object.hasOwn(table, key)) return table[key];
  }
  return undefined;
}

/**
 * One model call's usage with its cost: the model's own figure kept where
 * it gave one, else priced from its model id; with no known price (or no
 * model id) the tokens stay unpriced (no `costUsd`). Priced step by step,
 * before steps are summed, so a run that mixes models sums priced parts.
 */
export function priceUsage(usage: Usage, overrides?: PriceTable): Usage {
  if (usage.costUsd !== undefined || usage.model === undefined) return usage;
  const price = priceOf(usage.model, overrides);
  if (price === undefined) return usage;
  const perToken = (perMTok: number): number => perMTok / 1_000_000;
  const costUsd =
    usage.inputTokens * perToken(price.inputPerMTok) +
    usage.outputTokens * perToken(price.outputPerMTok) +
    (usage.cacheReadTokens ?? 0) * perToken(price.cacheReadPerMTok ?? price.inputPerMTok) +
    (usage.cacheWriteTokens ?? 0) * perToken(price.cacheWritePerMTok ?? price.inputPerMTok);
  return { ...usage, costUsd };
}
