/**
 * Ends a run with one plain line, `vitest: N passed, N failed`, that CI
 * systems read without knowing vitest's own summary format. A run that
 * executed no test at all says so and fails.
 *
 * Before it, one line per test skipped with a reason (`ctx.skip(reason)`,
 * as test/support/requires.ts does for a missing capability), so a green
 * run on a laptop says what it did not run, and why.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const reasons: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') failed++;
        else {
          skipped++;
          if (result.state === 'skipped' && result.note !== undefined) {
            reasons.push(`skipped: ${relative(process.cwd(), module.moduleId)} > ${test.fullName}: ${result.note}`);
          }
        }
      }
    }
    if (reasons.length > 0) console.log(`\n${reasons.join('\n')}`);
    const skippedPart = skipped > 0 ? `, ${skipped} skipped` : '';
    console.log(`\nvitest: ${passed} passed, ${failed} failed${skippedPart}`);
    if (passed + failed === 0) {
      console.log('vitest: no test ran');
      process.exitCode = 1;
    }
  }
}
