/**
 * The vitest config Stryker runs (scripts/mutation/run.ts): only the test
 * files of the target being mutated, given in VIGIL_MUTATION_TESTS
 * (comma-separated). No PostgreSQL project: mutation runs stay in-process.
 */
import { defineConfig } from 'vitest/config';

const tests = (process.env.VIGIL_MUTATION_TESTS ?? '').split(',').filter((file) => file !== '');
if (tests.length === 0) throw new Error('vitest.mutation.config.ts: VIGIL_MUTATION_TESTS names no test file (run it through npm run mutation)');

export default defineConfig({
  test: {
    include: tests,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
