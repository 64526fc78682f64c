/**
 * Prices (src/agent/prices.ts): a run's usage is priced by its model id,
 * step by step, where the model gives no cost of its own; a model with no
 * known price records its tokens with no cost; the config's prices win
 * over the built-in table. On the runtime with a real SQLite store: what
 * the run's finish records is the priced total.
 */
import { describe, expect, it } from 'vitest';
import { defineAgent, toolAgent, type Agent, type Model, type ModelReply, type Store } from '../../src/index.js';
import { PRICES, priceKeys, priceOf, priceUsage, type PriceTable } from '../../src/agent/prices.js';
import { RuntimeEvents } from '../../src/events.js';
import { WorkerPool } from '../../src/runtime/worker-pool.js';
import { defer, nextEvent, tempStore } from '../runtime/helpers.js';

/** A model that says one line per step, reporting `usage` for it. */
function scripted(...usages: ModelReply['usage'][]): Model {
  return {
    name: 'scripted',
    async step(): Promise<ModelReply> {
      const usage = usages.shift();
      return { turn: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, stopReason: 'end_turn', ...(usage === undefined ? {} : { usage }) };
    },
  };
}

async function runOnce(store: Store, agent: Agent, prices?: PriceTable) {
  const events = new RuntimeEvents();
  const pool = new WorkerPool({ store, agent, events, pollIntervalMs: 1e9, ...(prices === undefined ? {} : { prices }) });
  await pool.start();
  defer(() => pool.stop({ graceMs: 0 }));
  const finished = nextEvent(events, 'run:finished');
  await store.inbox('alice').ingest({ source: 'chat', sourceId: 'm1', payload: { text: 'hi' } });
  const run = await finished;
  return { run, today: (await store.inbox('alice').stats()).usage.today };
}

const MILLION = 1_000_000;

describe('the price table', () => {
  it('matches an id exactly, without a provider prefix, or without a dated or -latest suffix; never by a looser prefix', () => {
    expect(priceKeys('claude-sonnet-4-5-20250929')).toEqual(['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5']);
    expect(priceKeys('openai/gpt-4o-2024-08-06')).toEqual(['openai/gpt-4o-2024-08-06', 'gpt-4o-2024-08-06', 'gpt-4o']);
    expect(priceOf('claude-3-5-haiku-latest')).toBe(PRICES['claude-3-5-haiku']);
    expect(priceOf('gpt-4o-mini')).toBe(PRICES['gpt-4o-mini']);
    expect(priceOf('gpt-4o-mini-tts')).toBeUndefined();
    expect(priceOf('claude-sonnet-4-5-preview')).toBeUndefined();
  });

  it('prices each kind of token, a cache price absent being the input price; the model\'s own cost is kept; no price or no id: no cost', () => {
    const usage = { inputTokens: MILLION, outputTokens: MILLION, cacheReadTokens: MILLION, cacheWriteTokens: MILLION };
    expect(priceUsage({ ...usage, model: 'claude-sonnet-4-5-20250929' }).costUsd).toBeCloseTo(3 + 15 + 0.3 + 3.75, 9);
    expect(priceUsage({ ...usage, model: 'gpt-4o' }).costUsd).toBeCloseTo(2.5 + 10 + 1.25 + 2.5, 9);
    expect(priceUsage({ ...usage, model: 'gpt-4o', costUsd: 0.5 }).costUsd).toBe(0.5);
    expect(priceUsage({ ...usage, model: 'llama-local' })).not.toHaveProperty('costUsd');
    expect(priceUsage(usage)).not.toHaveProperty('costUsd');
    const override = { 'gpt-4o': { inputPerMTok: 1, outputPerMTok: 2 } };
    expect(priceUsage({ inputTokens: MILLION, outputTokens: MILLION, model: 'gpt-4o-2024-08-06' }, override).costUsd).toBe(3);
  });
});

describe('usage priced on the runtime, recorded with the finish', () => {
  it('toolAgent: a model id in the table gets a cost (recorded as such); one not in it is unpriced', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const model = scripted({ inputTokens: 2_000, outputTokens: 1_000, model: 'claude-haiku-4-5-20251001' });
    const { run, today } = await runOnce(store, toolAgent({ model, tools: [] }));
    const cost = (2_000 * 1 + 1_000 * 5) / MILLION;
    expect(run.usage).toMatchObject({ inputTokens: 2_000, outputTokens: 1_000, costUsd: cost });
    expect(today).toMatchObject({ runs: 1, inputTokens: 2_000, outputTokens: 1_000, unpricedRuns: 0 });
    expect(today.costUsd).toBeCloseTo(cost, 12);

    const { store: other } = await tempStore({ outboxGapMs: 0 });
    const unknown = await runOnce(other, toolAgent({ model: scripted({ inputTokens: 10, outputTokens: 5, model: 'llama-local' }), tools: [] }));
    expect(unknown.run.usage).not.toHaveProperty('costUsd');
    expect(unknown.today).toMatchObject({ runs: 1, inputTokens: 10, outputTokens: 5, costUsd: 0, unpricedRuns: 1 });
  });

  it('ctx.recordUsage prices each step by its own model before summing: one priced, one not, makes a partly priced run', async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const agent = defineAgent({
      async run(ctx) {
        ctx.recordUsage({ inputTokens: MILLION, outputTokens: 0, model: 'gpt-4o-mini' });
        ctx.recordUsage({ inputTokens: 0, outputTokens: MILLION, model: 'gpt-4o' });
        ctx.recordUsage({ inputTokens: 7, outputTokens: 0, model: 'llama-local' });
        return { nothing: true };
      },
    });
    const { run, today } = await runOnce(store, agent);
    expect(run.usage!.costUsd).toBeCloseTo(0.15 + 10, 9);
    expect(run.usage!.unpriced).toBe(true);
    expect(today).toMatchObject({ runs: 1, inputTokens: MILLION + 7, outputTokens: MILLION, unpricedRuns: 1 });
    expect(today.costUsd).toBeCloseTo(10.15, 9);
  });

  it("the config's prices win over the built-in table, and price a model the table does not know", async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const prices = { 'gpt-4o': { inputPerMTok: 100, outputPerMTok: 0 }, 'llama-local': { inputPerMTok: 1, outputPerMTok: 1 } };
    const agent = defineAgent({
      async run(ctx) {
        ctx.recordUsage({ inputTokens: MILLION, outputTokens: 0, model: 'gpt-4o-2024-08-06' });
        ctx.recordUsage({ inputTokens: MILLION, outputTokens: 0, model: 'llama-local' });
        return { nothing: true };
      },
    });
    const { run, today } = await runOnce(store, agent, prices);
    expect(run.usage).toMatchObject({ costUsd: 101 });
    expect(run.usage).not.toHaveProperty('unpriced');
    expect(today).toMatchObject({ runs: 1, costUsd: 101, unpricedRuns: 0 });
  });

  it("a usage the agent returns without recording it is priced too; the model's own cost is kept as given", async () => {
    const { store } = await tempStore({ outboxGapMs: 0 });
    const returns = defineAgent({ run: async () => ({ nothing: true, usage: { inputTokens: MILLION, outputTokens: 0, model: 'gpt-4o' } }) });
    expect((await runOnce(store, returns)).today).toMatchObject({ runs: 1, costUsd: 2.5, unpricedRuns: 0 });
    const { store: other } = await tempStore({ outboxGapMs: 0 });
    const own = defineAgent({ run: async () => ({ nothing: true, usage: { inputTokens: MILLION, outputTokens: 0, costUsd: 0.01, model: 'gpt-4o' } }) });
    expect((await runOnce(other, own)).today).toMatchObject({ runs: 1, costUsd: 0.01, unpricedRuns: 0 });
  });
});
