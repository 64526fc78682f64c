/** The adapters family's section: each pair on one row, the ratio adapter ÷ peer from the medians of the same run. */
import { expect, it } from 'vitest';
import { PAIRS, renderAdaptersSection } from '../../bench/adapters.js';

it('puts each adapter beside its peer with the ratio of their medians', () => {
  const section = renderAdaptersSection({
    results: [{ pair: PAIRS[0]!, adapter: { cycles: 45, medianMs: 1100, p90Ms: 1300 }, peer: { cycles: 45, medianMs: 40, p90Ms: 55 } }],
    machine: { cpu: 'test cpu', cores: 2, node: 'v20.0.0' } as never,
    plan: { rounds: 3, warmup: 2, cycles: 15 },
    seconds: 12,
    loadAtEnd: [1, 1, 1],
  });
  expect(section.startsWith('## Adapters\n')).toBe(true);
  expect(section).toContain('| Claude Agent SDK (`claudeAgentSdk`) | Anthropic Messages (streamed to the SDK, JSON to claudeAgent) | 1100.0 / 1300.0 | claudeAgent | 40.0 / 55.0 | 27.50x |');
  expect(section).toContain('3 rounds × 15 cycles after 2 warm-up');
});

it('pairs every adapter with a peer on the same fake, and each agent module exists', async () => {
  const { existsSync } = await import('node:fs');
  expect(PAIRS.map((pair) => pair.adapter.label)).toEqual(['claudeAgentSdk', 'toolAgent + aiSdkModel', 'toolAgent + aiSdkModel', 'claudeAgent + mcpTools']);
  for (const pair of PAIRS) for (const side of [pair.adapter, pair.peer]) expect(existsSync(side.agent), side.agent).toBe(true);
});
