/**
 * vigil_model_tokens_total and vigil_model_cost_usd_total: from the usage
 * on run:finished (metrics come only from the event stream), by inbox,
 * with the inbox label bounded (model-usage-metrics.ts).
 */
import { expect, it } from 'vitest';
import { RuntimeEvents } from '../../src/events.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { MAX_INBOX_LABELS } from '../../src/observability/model-usage-metrics.js';
import { observe } from '../../src/observability/observe.js';
import type { Usage } from '../../src/index.js';

function finished(events: RuntimeEvents, inboxId: string, usage?: Usage): void {
  events.emit('run:finished', { inboxId, gen: 1, eventIds: [1], outcome: 'messages', durationMs: 5, ...(usage === undefined ? {} : { usage }) });
}

async function samples(metrics: ReturnType<typeof createMetrics>, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)!;
  return metric.values.map(({ labels, value }) => ({ labels: labels as Record<string, string | number>, value }));
}

it("counts each run's tokens by inbox and kind, and its cost where priced; a run without usage counts nothing", async () => {
  const events = new RuntimeEvents();
  const metrics = createMetrics({ defaultMetrics: false });
  const stop = observe(events, { metrics });
  finished(events, 'alice', { inputTokens: 100, outputTokens: 20, cacheReadTokens: 5, costUsd: 0.5 });
  finished(events, 'alice', { inputTokens: 1, outputTokens: 2, cacheWriteTokens: 3 });
  finished(events, 'bob');
  expect(await samples(metrics, 'vigil_model_tokens_total')).toEqual([
    { labels: { inbox: 'alice', kind: 'input' }, value: 101 },
    { labels: { inbox: 'alice', kind: 'output' }, value: 22 },
    { labels: { inbox: 'alice', kind: 'cache_read' }, value: 5 },
    { labels: { inbox: 'alice', kind: 'cache_write' }, value: 3 },
  ]);
  expect(await samples(metrics, 'vigil_model_cost_usd_total')).toEqual([{ labels: { inbox: 'alice' }, value: 0.5 }]);
  stop();
});

it(`gives the first ${MAX_INBOX_LABELS} inboxes a label each and counts the rest as "(other)"`, async () => {
  const events = new RuntimeEvents();
  const metrics = createMetrics({ defaultMetrics: false });
  const stop = observe(events, { metrics });
  for (let n = 0; n < MAX_INBOX_LABELS + 5; n++) finished(events, `user-${n}`, { inputTokens: 1, outputTokens: 0, costUsd: 1 });
  finished(events, 'user-0', { inputTokens: 1, outputTokens: 0, costUsd: 1 }); // one labelled already keeps its label
  const cost = await samples(metrics, 'vigil_model_cost_usd_total');
  expect(cost).toHaveLength(MAX_INBOX_LABELS + 1);
  expect(cost.find((s) => s.labels.inbox === 'user-0')!.value).toBe(2);
  expect(cost.find((s) => s.labels.inbox === '(other)')!.value).toBe(5);
  stop();
});
