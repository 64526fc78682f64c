/** The process metrics prom-client collects are named vigil_process_… and vigil_nodejs_…, the prefix said once. */
import { expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';

it('every metric starts with vigil_ and none repeats a prefix', async () => {
  const { registry } = createMetrics();
  const names = (await registry.getMetricsAsJSON()).map((metric) => metric.name);
  expect(names).toContain('vigil_process_cpu_user_seconds_total');
  expect(names).toContain('vigil_process_resident_memory_bytes');
  expect(names).toContain('vigil_nodejs_eventloop_lag_seconds');
  expect(names).toContain('vigil_events_ingested_total');
  expect(names.filter((name) => !name.startsWith('vigil_'))).toEqual([]);
  expect(names.filter((name) => /(?:^|_)(\w+?)_\1_/.test(name))).toEqual([]);
});
