import { configDefaults, defineConfig } from 'vitest/config';

// PostgreSQL test files: only their project starts (or connects to) a server.
const POSTGRES_TESTS = ['test/postgres/**/*.test.ts', 'test/conformance/postgres.test.ts', 'test/**/*.postgres.test.ts'];

export default defineConfig({
  test: {
    // Child-process and PostgreSQL tests start real processes: give them room.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default', './test/reporters/summary-line.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...POSTGRES_TESTS] },
      },
      {
        extends: true,
        test: { name: 'postgres', include: POSTGRES_TESTS, globalSetup: ['./test/setup/postgres.ts'] },
      },
    ],
  },
});
