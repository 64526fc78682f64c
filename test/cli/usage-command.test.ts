/**
 * `vigil usage <inbox>`: an inbox's model usage by the person's local day
 * or month, read from a real SQLite store by the real CLI in a child process.
 */
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/index.js';
import { ServiceHarness } from '../fixtures/service-process.js';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

/** Two runs for alice, in New York: late on Nov 29 (already Nov 30 in UTC), and on Dec 1; one priced, one not. */
async function seed(dir: string): Promise<void> {
  let now = Date.UTC(2026, 10, 30, 3, 30); // 2026-11-29 22:30 in New York
  const store = await openStore(`sqlite:${dir}`, { clock: () => now });
  try {
    const inbox = store.inbox('alice');
    await inbox.updateSettings({ timeZone: 'America/New_York' });
    for (const [sourceId, usage] of [
      ['m1', { inputTokens: 1_000, outputTokens: 100, costUsd: 0.02 }],
      ['m2', { inputTokens: 50, outputTokens: 5 }],
    ] as const) {
      await inbox.ingest({ source: 'chat', sourceId });
      const gen = (await inbox.acquire('W'))!;
      const claimed = await inbox.claimBatch('W', gen);
      expect(await inbox.finish('W', gen, claimed.map((e) => e.id), { usage })).toBe(true);
      await inbox.release('W', gen);
      now = Date.UTC(2026, 11, 1, 12, 0); // 07:00 on Dec 1 in New York
    }
  } finally {
    await store.close();
  }
}

it('sums by local month or day in the inbox\'s time zone, as a table or JSON, and says when runs were unpriced', async () => {
  const dir = harness.tempDir('vigil-usage-');
  await seed(dir);
  const store = ['--store', `sqlite:${dir}`];
  let result = await harness.cli(['usage', 'alice', '--from', '2026-11', '--to', '2027-01', '--by', 'month', '--json', ...store]);
  expect(result.code, result.stderr).toBe(0);
  const json = JSON.parse(result.stdout) as { timeZone: string; from: number; usage: unknown[] };
  expect(json.timeZone).toBe('America/New_York');
  expect(json.from).toBe(Date.UTC(2026, 10, 1, 4)); // midnight in New York (EDT until Nov 1, 02:00)
  expect(json.usage).toEqual([
    { period: '2026-11', runs: 1, inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.02, unpricedRuns: 0 },
    { period: '2026-12', runs: 1, inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unpricedRuns: 1 },
  ]);
  result = await harness.cli(['usage', 'alice', '--from', '2026-11-29', '--to', '2026-11-30', ...store]);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^period\s+runs\s+input/);
  expect(result.stdout).toMatch(/2026-11-29\s+1\s+1000\s+100\s+0\s+0\s+0\.0200\s+0/);
  expect(result.stdout).not.toContain('2026-12-01');
  result = await harness.cli(['usage', 'alice', '--from', '2026-12-01', '--to', '2026-12-02', ...store]);
  expect(result.stdout).toContain('1 runs used a model with no known price');
});

it('a bad period, window or day is a usage error (exit 2) naming it', async () => {
  const dir = harness.tempDir('vigil-usage-');
  await seed(dir);
  const store = ['--store', `sqlite:${dir}`];
  let result = await harness.cli(['usage', 'alice', '--by', 'week', ...store]);
  expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('--by')]);
  result = await harness.cli(['usage', 'alice', '--from', '2026-02-30', ...store]);
  expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('--from: 2026-02-30 is no calendar day or month')]);
  result = await harness.cli(['usage', 'alice', '--from', '2020-01-01', '--to', '2026-01-01', ...store]);
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('at most 400 days by day');
});
