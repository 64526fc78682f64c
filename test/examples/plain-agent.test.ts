/**
 * examples/plain-agent, the project `vigil init` writes: its own tests
 * (node:test, as `npm test` runs them in the project) pass, and `vigil
 * serve` with its vigil.json answers a signed GitHub webhook once.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterEach, expect, it } from 'vitest';
import { REPO_ROOT, ServiceHarness, TSX_LOADER, waitFor } from '../fixtures/service-process.js';

const EXAMPLE = join(REPO_ROOT, 'examples/plain-agent');
const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

it("the example's own tests pass under node:test", async () => {
  // TAP named, not left to the default: Node 20 defaults to TAP when stdout is not a terminal, Node 23+ to spec.
  const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile(process.execPath, ['--import', TSX_LOADER, '--test', '--test-reporter=tap', join(EXAMPLE, 'agent.test.ts')], { cwd: REPO_ROOT }, (error, out) =>
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout: out }),
    );
  });
  expect(stdout).toMatch(/^# pass 3$/m);
  expect(stdout).toMatch(/^# fail 0$/m);
  expect(code).toBe(0);
});

it('served with its vigil.json, it answers a signed webhook once', async () => {
  const example = JSON.parse(readFileSync(join(EXAMPLE, 'vigil.json'), 'utf8')) as { sources: { github: { secret: string } } };
  const dir = harness.tempDir('vigil-plain-agent-');
  const config = harness.writeConfig(dir, {
    ...example,
    store: `sqlite:${join(dir, 'data')}`,
    port: 0,
    agent: join(EXAMPLE, 'agent.ts'),
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 200 },
  });
  const serve = harness.serve(config);
  const url = await serve.url();
  const body = JSON.stringify({ action: 'opened', issue: { title: 'Crash on save' } });
  const signature = await sign(example.sources.github.secret, body);
  const post = () =>
    fetch(`${url}/hooks/alice/github`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-delivery': 'd-1', 'x-hub-signature-256': signature } });
  expect((await post()).status).toBe(202);
  await waitFor('the reply', () => serve.printed.includes('GitHub: opened "Crash on save" (delivery d-1).'));
  // The redelivery is a duplicate: stored once, so never run twice.
  const again = await post();
  expect([again.status, await again.json()]).toEqual([200, { stored: false, duplicate: true }]);
  expect(serve.printed.split('GitHub: opened').length - 1).toBe(1);
  serve.signal('SIGTERM');
  expect(await serve.exited).toEqual({ code: 0, signal: null });
});
