/**
 * `npm run docs`: the API reference TypeDoc makes from the TSDoc of the
 * public entry points (the package root, vigil-agents/testing and the
 * adapters' subpaths). With treatWarningsAsErrors (typedoc.json) a public
 * type that refers to one the package does not export, or a broken
 * {@link}, fails the build, and so this test. Built into a temporary folder, not the checkout's docs/api.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/service-process.js';

const out = mkdtempSync(join(tmpdir(), 'vigil-api-docs-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

it('builds without a warning and documents defineAgent and the testing kit', async () => {
  const result = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [join(REPO_ROOT, 'node_modules/typedoc/bin/typedoc'), '--out', out], { cwd: REPO_ROOT }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr }),
    );
  });
  expect(result.output).not.toMatch(/\[warning\]|\[error\]/);
  expect(result.code).toBe(0);
  expect(existsSync(join(out, 'index.html'))).toBe(true);
  const defineAgent = readFileSync(join(out, 'functions/index.defineAgent.html'), 'utf8');
  expect(defineAgent).toContain('AgentDefinition');
  expect(existsSync(join(out, 'functions/testing.throwawayStore.html'))).toBe(true);
  for (const page of ['adapters_ai-sdk.aiSdkModel', 'adapters_ai-sdk.aiSdkTools', 'adapters_claude-agent-sdk.claudeAgentSdk', 'adapters_mcp.mcpTools']) {
    expect(existsSync(join(out, `functions/${page}.html`)), page).toBe(true);
  }
}, 120_000);
