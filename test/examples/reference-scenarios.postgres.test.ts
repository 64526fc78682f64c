/**
 * The article's eight scenarios on PostgreSQL: the same lines as its
 * reference script, as on SQLite (reference-scenarios.test.ts). The fake
 * clock is injected, so the leases follow it rather than the database's.
 */
import { expect, it } from 'vitest';
import { runScenarios } from '../../examples/reference-scenarios.js';
import { openStore } from '../../src/index.js';
import { useTestDatabase } from '../postgres/test-database.js';
import { EXPECTED } from './expected-output.js';

const db = useTestDatabase('scenarios');

it('prints the reference output for all eight scenarios on PostgreSQL', async () => {
  const schema = db.freshSchema('scenarios');
  const lines = await runScenarios((clock) => openStore(db.url, { clock, schema }));
  expect(lines).toEqual(EXPECTED);
});
