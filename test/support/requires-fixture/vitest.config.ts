// The requires() fixture's own run (test/support/requires.test.ts starts it): one file, the summary reporter.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*.case.ts'],
    reporters: ['default', '../../reporters/summary-line.ts'],
  },
});
