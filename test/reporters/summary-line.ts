/**
 * Ends a run with one plain line, `vitest: N passed, N failed`, that CI
 * systems read without knowing vitest's own summary format. A run that
 * executed no test at all says so and fails.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    const skippedPart = skipped > 0 ? `, ${skipped} skipped` : '';
    console.log(`\nvitest: ${passed} passed, ${failed} failed${skippedPart}`);
    if (passed + failed === 0) {
      console.log('vitest: no test ran');
      process.exitCode = 1;
    }
  }
}
