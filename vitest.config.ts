import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// PostgreSQL test files: only their project starts (or connects to) a server.
const POSTGRES_TESTS = ['test/postgres/**/*.test.ts', 'test/conformance/postgres.test.ts', 'test/**/*.postgres.test.ts'];

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // The examples import the package by name, as a user's project does: here that name means
  // the sources (tsconfig.json's "paths" says the same to tsc and tsx).
  resolve: {
    alias: [
      { find: /^vigil-agents$/, replacement: source('./src/index.ts') },
      { find: /^vigil-agents\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^vigil-agents\/ai-sdk$/, replacement: source('./src/adapters/ai-sdk/index.ts') },
      { find: /^vigil-agents\/mcp$/, replacement: source('./src/adapters/mcp/index.ts') },
      { find: /^vigil-agents\/claude-agent-sdk$/, replacement: source('./src/adapters/claude-agent-sdk/index.ts') },
    ],
  },
  test: {
    // Child-process and PostgreSQL tests start real processes: give them room.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // At least two files at a time. Vitest's default is one fewer than the cores, which on a
    // 2-core CI machine is one file at a time, while most files spend their time waiting on child
    // processes, fsyncs, PostgreSQL and timers: two at a time took the suite from 590 s to 485 s
    // there. A machine with more cores keeps the default.
    maxWorkers: Math.max(2, availableParallelism() - 1),
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
