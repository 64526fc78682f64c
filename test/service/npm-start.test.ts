/**
 * `npm start`, then Ctrl-C, as the README promises: exit 0. A terminal's
 * Ctrl-C goes to the whole foreground process group (npm, the shell npm
 * runs the script in, node), so the test starts `npm start` in a process
 * group of its own and signals the group. Two things turned it into 130:
 * `sh -c` stayed between npm and node and killed itself with the SIGINT
 * after node exited 0 (npm then re-raises it on itself), and npm forwards
 * the SIGINT it got to node, which counted the echo as a second Ctrl-C.
 * Runs the built CLI (dist/), as `npm start` does: `npm install` builds it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { REPO_ROOT, ServeProcess, ServiceHarness } from '../fixtures/service-process.js';

const harness = new ServiceHarness();
let group: ServeProcess | undefined;
afterEach(async () => {
  if (group?.alive) {
    process.kill(-group.pid, 'SIGKILL');
    await group.exited;
  }
  await harness.cleanup();
});

it('npm start, Ctrl-C: the service drains and npm exits 0', async () => {
  expect(existsSync(join(REPO_ROOT, 'dist/cli/main.js')), 'dist/ is missing: run npm run build (npm install does)').toBe(true);
  const data = join(harness.tempDir('vigil-npm-start-'), 'data');
  const { ANTHROPIC_API_KEY: _key, ...env } = process.env;
  group = new ServeProcess(
    spawn('npm', ['start', '--', '--port', '0', '--store', `sqlite:${data}`], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  await group.url();
  process.kill(-group.pid, 'SIGINT');
  expect(await group.exited).toEqual({ code: 0, signal: null });
  expect(group.logs.filter((line) => line.msg === 'signal received: draining')).toHaveLength(1);
  expect(group.logs.at(-1)?.msg).toBe('stopped');
});
