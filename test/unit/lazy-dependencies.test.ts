/**
 * Heavy dependencies load only when used: importing Vigil loads no
 * database driver, a SQLite store loads better-sqlite3 and not pg, a
 * PostgreSQL store pg and not better-sqlite3, and an email channel loads
 * nodemailer only when it first sends. Each case is a fresh process.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/child-processes.js';

function loadedAfter(step: string): string[] {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/fixtures/loaded-packages.ts', step], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out) as string[];
}

describe('heavy dependencies load lazily', () => {
  it.each([
    { what: 'importing the package (claudeAgent included)', step: 'import', loads: [] },
    { what: 'a SQLite store', step: 'sqlite', loads: ['better-sqlite3'] },
    { what: 'a PostgreSQL store', step: 'postgres', loads: ['pg'] },
    { what: 'an email channel that has sent nothing yet', step: 'email-channel', loads: [] },
    { what: 'importing vigil-agents/mcp without calling mcpTools', step: 'mcp-import', loads: [] },
    { what: 'a step of aiSdkModel (the model object is the caller\'s)', step: 'ai-sdk-model', loads: [] },
  ])('$what loads $loads', ({ step, loads }) => {
    expect(loadedAfter(step)).toEqual(loads);
  });
});
