/**
 * `vigil dev` as a developer uses it: a real child process serving a
 * project in a temporary folder, the agent's files edited while it runs.
 * The edit takes effect at the next run, never inside one: a run that is
 * in progress when the file changes finishes with the code it started
 * with, and an event that arrives meanwhile waits for the new code. A
 * broken edit is logged and the previous agent keeps answering.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { REPO_ROOT, ServeProcess, TSX_LOADER, waitFor } from '../fixtures/service-process.js';

const TOKEN = 'dev-test-token-0123456789abcdef01234';
const started: ServeProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.alive) process.kill(child.pid, 'SIGKILL');
    await child.exited;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The agent reads its reply from a helper module, so an edit two files deep must reach it. "slow" waits for a release file. */
const AGENT = `
import { existsSync, writeFileSync } from 'node:fs';
import { reply } from './reply.ts';

export default {
  name: 'dev-test',
  async run(ctx: { inboxId: string; events: { payload: unknown }[] }) {
    const texts = ctx.events.map((e) => String((e.payload as { text?: string }).text));
    if (texts.includes('slow')) {
      writeFileSync(new URL('./slow-started', import.meta.url), '');
      while (!existsSync(new URL('./release', import.meta.url))) await new Promise((r) => setTimeout(r, 20));
    }
    return { messages: texts.map((text) => reply(text)) };
  },
};
`;

const replyModule = (version: string): string => `export const reply = (text: string): string => \`${version}: \${text}\`;\n`;

/** Output without pino-pretty's colours. */
const plain = (child: ServeProcess): string => stripVTControlCharacters(child.stdout);

it('reloads the agent on save, between runs: the run in progress ends on the old code, the next one uses the new', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-dev-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(dir, 'agent.ts'), AGENT);
  writeFileSync(join(dir, 'reply.ts'), replyModule('v1'));
  writeFileSync(
    join(dir, 'vigil.json'),
    JSON.stringify({ store: 'sqlite:./data', port: 0, agent: './agent.ts', token: TOKEN, engine: { outboxGapMs: 0 }, workers: { pollIntervalMs: 200 } }),
  );
  // No --config: `vigil dev`, like `vigil serve`, reads ./vigil.json.
  const child = new ServeProcess(
    spawn(process.execPath, ['--import', TSX_LOADER, join(REPO_ROOT, 'src/cli/main.ts'), 'dev'], { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  started.push(child);
  const url = await waitFor('the listening line', () => /vigil listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(plain(child))?.[1] ?? (child.alive ? undefined : child.stderr));
  expect(url).toMatch(/^http/);
  await waitFor('the watcher', () => plain(child).includes('the agent is reloaded when it or a file it imports changes'));
  // Pretty logs, not JSON lines.
  expect(plain(child)).toMatch(/^\[[\d:.]+\] INFO: vigil listening on /m);

  const say = async (inbox: string, key: string, text: string): Promise<void> => {
    const response = await fetch(`${url}/inboxes/${inbox}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'idempotency-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    expect(response.status).toBe(202);
  };
  const replied = (body: string) => waitFor(`the reply "${body}"`, () => plain(child).split('\n').includes(body));

  await say('alice', 'm1', 'hello');
  await replied('v1: hello');

  // A run starts and is held; meanwhile the helper is edited and bob writes.
  await say('alice', 'm2', 'slow');
  await waitFor('the slow run to start', () => existsSync(join(dir, 'slow-started')));
  writeFileSync(join(dir, 'reply.ts'), replyModule('v2'));
  await waitFor('the change to be seen', () => plain(child).includes('agent changed: swapping it in once the runs in hand finish'));
  await say('bob', 'b1', 'meanwhile');
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(plain(child)).not.toContain('meanwhile'); // bob waits: the old agent takes no new run, the new one is not in yet
  expect(plain(child)).not.toContain('agent reloaded');

  writeFileSync(join(dir, 'release'), '');
  await replied('v1: slow'); // the run in progress finished with the code it started with
  await replied('v2: meanwhile'); // the next run has the new code
  const out = plain(child);
  expect(out.indexOf('v1: slow')).toBeLessThan(out.indexOf('agent reloaded'));

  // A broken edit: logged, and the agent that runs stays.
  writeFileSync(join(dir, 'reply.ts'), 'export const reply = (text: string): string => `v3');
  await waitFor('the failed reload', () => plain(child).includes('agent not reloaded: the previous one keeps running'));
  await say('alice', 'm3', 'still there');
  await replied('v2: still there');

  child.signal('SIGTERM');
  expect(await child.exited).toEqual({ code: 0, signal: null });
});
