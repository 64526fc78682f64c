/**
 * requires(): a missing capability skips the file's tests with one line
 * each saying why, and the run stays green; with CI=true the same run
 * fails; where the capability is there, the tests run. Through a real
 * vitest run of a fixture file (test/support/requires-fixture/).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/child-processes.js';
import { inCi } from './requires.js';

function runFixture(env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const { CI: _ci, ...rest } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/support/requires-fixture/vitest.config.ts'],
      { cwd: REPO_ROOT, env: { ...rest, NO_COLOR: '1', ...env } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), output: stdout + stderr }),
    );
  });
}

describe('requires()', () => {
  it('missing: the test is skipped with one line saying what is missing, and the run passes', async () => {
    const { code, output } = await runFixture({ CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(output).toContain(
      'skipped: test/support/requires-fixture/needs-chromium.case.ts > runs only where Chromium is: needs Chromium at /nonexistent/chromium (apt-get install chromium, or set CHROMIUM_PATH)',
    );
    expect(output).toContain('vitest: 1 passed, 0 failed, 1 skipped');
    expect(code).toBe(0);
  });

  it('missing under CI=true: the test fails saying so, and so does the run', async () => {
    const { code, output } = await runFixture({ CHROMIUM_PATH: '/nonexistent/chromium', CI: 'true' });
    expect(output).toContain('MissingCapability: needs Chromium at /nonexistent/chromium');
    expect(output).toContain('vitest: 1 passed, 1 failed');
    expect(code).toBe(1);
  });

  it('present: the test runs', async () => {
    const { code, output } = await runFixture({ CHROMIUM_PATH: process.execPath, CI: 'true' });
    expect(output).toContain('vitest: 2 passed, 0 failed');
    expect(code).toBe(0);
  });

  it('CI counts as set unless empty, 0 or false', () => {
    expect([undefined, '', '0', 'false', 'FALSE'].map((CI) => inCi({ CI }))).toEqual([false, false, false, false, false]);
    expect(['true', '1', 'yes'].map((CI) => inCi({ CI }))).toEqual([true, true, true]);
  });
});
