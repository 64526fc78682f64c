/**
 * Where the built-in demo agent keeps its refunds ledger: with the
 * inbox files on SQLite, and under ./data (not the working directory
 * itself) on PostgreSQL.
 */
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { loadAgent } from '../../src/service/load-agent.js';

const NO_KEY = { claude: null };

it('SQLite: the ledger sits beside the inbox files', async () => {
  expect((await loadAgent(undefined, 'sqlite:/var/lib/vigil', NO_KEY)).refundsFile).toBe('/var/lib/vigil/example-refunds.jsonl');
  expect((await loadAgent(undefined, 'sqlite:./data', NO_KEY)).refundsFile).toBe(resolve('data', 'example-refunds.jsonl'));
});

it('PostgreSQL: the ledger goes to ./data, never straight into the working directory', async () => {
  const { refundsFile } = await loadAgent(undefined, 'postgres://vigil@127.0.0.1/vigil', NO_KEY);
  expect(refundsFile).toBe(join(process.cwd(), 'data', 'example-refunds.jsonl'));
});
