/**
 * The package as a user gets it: `npm pack`, the tarball installed into an
 * empty folder, `vigil init` there, the new project's own `npm install` and
 * `npm test`, then `vigil serve` answering a signed GitHub webhook. Every
 * process this test starts is killed by its PID (with its process group:
 * npm runs scripts through a shell), and the folder is removed, pass or fail.
 *
 * It needs the npm registry (the tarball's dependencies; --prefer-offline
 * takes them from npm's cache when it has them). One shortcut, said out
 * loud: better-sqlite3's native module is copied from this checkout's
 * node_modules when the versions match, instead of compiled again. The
 * compile is a minute of CPU and tests better-sqlite3, not this package;
 * with another version it is built as usual (`npm rebuild`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REPO_ROOT, waitFor } from '../fixtures/service-process.js';

const started: ChildProcess[] = [];
const root = mkdtempSync(join(tmpdir(), 'vigil-pack-'));

afterAll(async () => {
  for (const child of started) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Gone between the check and the signal.
    }
    await exited;
  }
  rmSync(root, { recursive: true, force: true });
});

/**
 * The environment for npm and the project: this test's own, minus what the
 * `npm test` running it exported (npm_config_*, npm_package_*, ...), which
 * would make a nested npm think it works on this checkout.
 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'));
  delete env.ANTHROPIC_API_KEY;
  return { ...env, NO_COLOR: '1' };
}

interface Run {
  code: number | null;
  out: string;
}

/** Runs a command to its end in its own process group; fails the test with its output on a non-zero exit. */
function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: cleanEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    started.push(child);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} took over ${timeoutMs} ms\n${out}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ code, out });
      else reject(new Error(`${command} ${args.join(' ')} in ${cwd} exited ${code}\n${out}`));
    });
  });
}

const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

it('packs, installs into an empty folder, inits a project whose tests pass, and serves it', { timeout: 170_000 }, async () => {
  // npm pack runs `prepare`: a clean build of dist/.
  await run('npm', ['pack', '--pack-destination', root], REPO_ROOT, 60_000);
  const tarball = readdirSync(root).find((name) => /^vigil-agents-.+\.tgz$/.test(name));
  expect(tarball).toBeDefined();
  const listing = (await run('tar', ['-tzf', join(root, tarball!)], root, 10_000)).out.split('\n');
  const adapters = ['claude-agent-sdk', 'ai-sdk', 'mcp'].flatMap((name) => [`dist/adapters/${name}/index.js`, `dist/adapters/${name}/index.d.ts`]);
  for (const file of ['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/testing/index.d.ts', 'dist/cli/main.js', 'dist/cli/init/template/gitignore', 'docs/configuration.md', 'docs/recipes/deploying.md', ...adapters]) {
    expect(listing, file).toContain(`package/${file}`);
  }
  expect(listing.filter((file) => /^package\/(src|test|examples|bench)\//.test(file))).toEqual([]);

  // An empty folder: install the tarball (dependencies only, as any user gets them).
  const project = join(root, 'my-agent');
  mkdirSync(project);
  await run('npm', ['install', join(root, tarball!), ...NPM_FLAGS, '--ignore-scripts'], project, 90_000);
  await nativeSqlite(project);
  // The adapters' frameworks are optional peers: installing vigil-agents pulls in none of them (nor the Agent SDK's CLI binary),
  // and an adapter whose framework is missing says which package to install.
  for (const framework of ['@anthropic-ai/claude-agent-sdk', '@anthropic-ai/claude-agent-sdk-linux-x64', 'ai', '@modelcontextprotocol/sdk']) {
    expect(existsSync(join(project, 'node_modules', framework)), framework).toBe(false);
  }
  const missing = await run(
    process.execPath,
    ['--input-type=module', '-e', "const { mcpTools } = await import('vigil-agents/mcp'); await mcpTools({ servers: { x: { command: 'true' } } }).catch((error) => console.log(error.message));"],
    project,
    30_000,
  );
  expect(missing.out).toContain('vigil-agents/mcp needs the @modelcontextprotocol/sdk package, which is not installed: npm install @modelcontextprotocol/sdk');

  // `vigil init` in the same folder joins the package.json npm just wrote, then the project's own npm install and npm test.
  const init = await run(join(project, 'node_modules/.bin/vigil'), ['init'], project, 30_000);
  expect(init.out).toContain('Wrote a Vigil project');
  const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  expect(manifest.dependencies['vigil-agents']).toMatch(/^file:.*vigil-agents-.+\.tgz$/);
  await run('npm', ['install', ...NPM_FLAGS, '--ignore-scripts'], project, 60_000);
  const tests = await run('npm', ['test'], project, 60_000);
  // The project's own `node --test` reporter, which the user sees: TAP (`# pass 3`) on Node 20
  // without a terminal, spec (`ℹ pass 3`) on Node 23 and later.
  expect(tests.out).toMatch(/^(?:#|ℹ) pass 3$/m);
  expect(tests.out).toMatch(/^(?:#|ℹ) fail 0$/m);

  // `vigil serve` reads the project's vigil.json; a signed webhook gets the agent's reply on the console channel.
  const serve = spawn(join(project, 'node_modules/.bin/vigil'), ['serve', '--port', '0'], { cwd: project, env: cleanEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(serve);
  let out = '';
  serve.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  serve.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const url = await waitFor('vigil serve to listen', () => /"msg":"vigil listening on (http:\/\/[^"]+)"/.exec(out)?.[1] ?? (serve.exitCode === null ? undefined : out));
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const config = JSON.parse(readFileSync(join(project, 'vigil.json'), 'utf8')) as { sources: { github: { secret: string } } };
  const body = JSON.stringify({ action: 'opened', issue: { title: 'Crash on save' } });
  const signature = `sha256=${createHmac('sha256', config.sources.github.secret).update(body).digest('hex')}`;
  const ack = await fetch(`${url}/hooks/alice/github`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-github-delivery': 'delivery-1', 'x-hub-signature-256': signature },
  });
  expect(ack.status).toBe(202);
  // Not a terminal: the console channel prints the reply as the body of a JSON record.
  await waitFor('the reply on the console', () => out.includes(JSON.stringify('GitHub: opened "Crash on save" (delivery delivery-1).').slice(1, -1)), 30_000);
  const exited = new Promise<number | null>((resolve) => serve.once('exit', resolve));
  process.kill(serve.pid!, 'SIGTERM');
  expect(await exited).toBe(0);
});

/** better-sqlite3's native module: the checkout's build when the version matches, else built (see the top of the file). */
async function nativeSqlite(project: string): Promise<void> {
  const version = (dir: string): string => (JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
  const built = join(REPO_ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
  if (existsSync(built) && version(project) === version(REPO_ROOT)) {
    mkdirSync(join(project, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(built, join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));
  } else {
    await run('npm', ['rebuild', 'better-sqlite3'], project, 150_000);
  }
}
