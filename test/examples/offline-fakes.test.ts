/**
 * Every example can be tried by hand with no account and no network, and
 * its README's "Try it offline" says how, truly. For the examples that
 * call an outside service, this follows that section as written: the
 * fakes through the entry `npm run fakes` runs (scripts/fakes.ts, a child
 * killed by PID; SIGTERM must stop it cleanly), `vigil proxy` and `vigil
 * serve` with the configs it names and the variables it sets (only the
 * ports moved to free ones, the store to a temp dir), the shell blocks a
 * person pastes run by bash as they stand (openssl signs, curl sends), and
 * each "you should see" line waited for in the fake's log or in what the
 * console channel printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/load-config.js';
import { proxyConfigSchema } from '../../src/proxy/config.js';
import { FAKES } from '../../examples/fakes/index.js';
import { REPO_ROOT, ServeProcess, ServiceHarness, TSX_LOADER, waitFor } from '../fixtures/service-process.js';
import { linePattern, offlineSteps, readOfflineSection, shellWords, type StartCommand } from '../fixtures/try-offline.js';

const EXAMPLES = readdirSync(join(REPO_ROOT, 'examples'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(REPO_ROOT, 'examples', entry.name, 'README.md')))
  .map((entry) => entry.name);
const FAKE_PORTS = Object.values(FAKES).map((fake) => fake.port);

const harness = new ServiceHarness();
const fakes: ServeProcess[] = [];
afterEach(async () => {
  // SIGTERM, as Ctrl-C would: the fakes must close and exit 0. Whatever they do, SIGKILL leaves nothing behind.
  const stopping = fakes.splice(0);
  for (const fake of stopping) fake.signal('SIGTERM');
  const exits = await Promise.all(stopping.map((fake) => Promise.race([fake.exited, new Promise((resolve) => setTimeout(resolve, 5_000, 'still running'))])));
  for (const fake of stopping) fake.signal('SIGKILL');
  await harness.cleanup();
  for (const exit of exits) expect(exit).toEqual({ code: 0, signal: null });
});

/** `npm run fakes -- <names>` is `tsx scripts/fakes.ts <names>`: the same file, run the way the harness runs the CLI. */
function startFakes(args: string[]): ServeProcess {
  const proc = spawn(process.execPath, ['--import', TSX_LOADER, join(REPO_ROOT, 'scripts/fakes.ts'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const fake = new ServeProcess(proc);
  fakes.push(fake);
  return fake;
}

/** Follows the README's offline section of `example`, step by step. */
async function tryOffline(example: string): Promise<void> {
  const dir = join(REPO_ROOT, 'examples', example);
  const temp = harness.tempDir(`vigil-offline-${example}-`);
  // Fixed ports as the README names them → the free ones this run got.
  const moved = new Map<string, string>();
  const move = (text: string): string => [...moved].reduce((out, [from, to]) => out.replaceAll(from, to), text);
  const fakeLogs: ServeProcess[] = [];
  let serve: ServeProcess | undefined;
  let captured: string | undefined;

  const start = async ({ argv, env: raw }: StartCommand): Promise<void> => {
    const env = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, move(value)]));
    const command = argv.join(' ');
    if (command.startsWith('npm run fakes -- ')) {
      const names = argv.slice(4) as (keyof typeof FAKES)[];
      expect(names).toHaveLength(1); // one fake per example, so it can take a free port
      const fake = startFakes([...names, '--port', '0']);
      fakeLogs.push(fake);
      const url = await waitFor('the fake listening', () => /^fake \S+ listening on (\S+)$/m.exec(fake.stdout)?.[1]);
      moved.set(`http://127.0.0.1:${FAKES[names[0]!].port}`, new URL(url).origin);
      // What the README exports is what the fake says to export.
      for (const [name, value] of [...fake.stdout.matchAll(/^ {2}export (\w+)='(.*)'$/gm)].map((m) => [m[1]!, m[2]!] as const)) {
        if (name in raw) expect(move(raw[name]!), name).toBe(value);
      }
    } else if (/^npx vigil proxy --config \S+$/.test(command)) {
      const config = writeMoved(join(dir, argv[4]!), 'proxy.json');
      const proxy = harness.start(['proxy', '--config', config, '--port', '0'], { env });
      const url = (await proxy.log('proxy listening', (line) => line.msg.startsWith('vigil proxy listening on '))).url as string;
      moved.set('http://127.0.0.1:8788', url);
    } else if (/^npx vigil serve --config \S+$/.test(command)) {
      const config = JSON.parse(move(readFileSync(join(dir, argv[4]!), 'utf8'))) as Record<string, unknown>;
      serve = harness.serve(harness.writeConfig(temp, { ...config, store: `sqlite:${join(temp, 'data')}`, port: 0, agent: resolve(dir, config.agent as string) }), env);
      moved.set('http://127.0.0.1:8787', await serve.url());
    } else throw new Error(`the README of ${example} starts something this test does not know how to start: ${command}`);
  };

  const writeMoved = (file: string, name: string): string => {
    const path = join(temp, name);
    harness.writeConfig(dirname(path), JSON.parse(move(readFileSync(file, 'utf8'))) as Record<string, unknown>, name);
    return path;
  };

  const steps = offlineSteps(readOfflineSection(example)!);
  expect(steps.map((step) => step.kind)).toContain('start');
  let env: Record<string, string> = {};
  for (const step of steps) {
    if (step.kind === 'start') {
      for (const command of step.commands) await start(command);
      env = step.commands.at(-1)!.env;
    } else if (step.kind === 'paste') {
      const script = move(captured === undefined ? step.script : step.script.replaceAll('…', captured));
      const ran = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
      expect(ran.status, `${script}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
      expect(ran.stdout, script).not.toMatch(/"error"/);
    } else {
      for (const line of step.lines) {
        const pattern = linePattern(move(line));
        const where = (): string => (line.startsWith('[') ? fakeLogs.map((f) => f.stdout).join('') : serve!.printed);
        const match = await waitFor(`"${line}" ${line.startsWith('[') ? "in the fake's log" : 'printed by the console channel'}`, () => pattern.exec(where()) ?? undefined);
        if (match[1] !== undefined) captured = match[1];
      }
    }
  }
}

describe('Try it offline, followed as the README says', () => {
  it.each(['github-triage', 'stripe-refunds', 'slack-assistant', 'openai-compatible', 'ai-sdk'])('%s', (example) => tryOffline(example));
});

describe('every example README', () => {
  it.each(EXAMPLES)('%s has a "Try it offline" section whose fakes and configs exist', (example) => {
    const section = readOfflineSection(example);
    expect(section, `examples/${example}/README.md has no "## Try it offline" section`).toBeDefined();
    for (const [, names] of section!.matchAll(/npm run fakes -- ((?:[a-z]+ ?)+)/g)) {
      for (const name of shellWords(names!)) expect(Object.keys(FAKES), `npm run fakes -- ${name}`).toContain(name);
    }
    for (const [, file] of section!.matchAll(/--config ([\w.-]+)/g)) expect(existsSync(join(REPO_ROOT, 'examples', example, file!)), file).toBe(true);
  });

  it('`npm run fakes` is scripts/fakes.ts; a name it does not know is refused, listing the ones it has', async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.fakes).toBe('tsx scripts/fakes.ts');
    const wrong = startFakes(['gitlab']);
    expect(await wrong.exited).toEqual({ code: 2, signal: null });
    expect(wrong.stderr).toContain('no fake named gitlab');
    expect(wrong.stderr).toContain('github (8790), stripe (8791), slack (8792), anthropic (8793), openai (8794)');
    fakes.splice(fakes.indexOf(wrong), 1);
  });
});

describe("an example's offline config", () => {
  const offline = EXAMPLES.flatMap((example) =>
    readdirSync(join(REPO_ROOT, 'examples', example))
      .filter((name) => name.endsWith('.offline.json'))
      .map((name) => `examples/${example}/${name}`),
  );

  it('exists for each example that calls a service', () => {
    expect(offline.sort()).toEqual(['examples/claude-agent-sdk/proxy.offline.json', 'examples/github-triage/proxy.offline.json', 'examples/slack-assistant/vigil.offline.json', 'examples/stripe-refunds/proxy.offline.json']);
  });

  it.each(offline)('%s is valid, and its online twin but for URLs at the fakes', (file) => {
    const value = JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as Record<string, unknown>;
    if ('upstreams' in value) expect(proxyConfigSchema.safeParse(value).success).toBe(true);
    else expect(() => parseConfigFile(value, file)).not.toThrow();
    const online = JSON.parse(readFileSync(join(REPO_ROOT, file.replace('.offline.json', '.json')), 'utf8')) as unknown;
    const differences = differ(online, value);
    expect(differences.length).toBeGreaterThan(0);
    for (const [path, url] of differences) {
      expect(FAKE_PORTS.map((port) => `http://127.0.0.1:${port}`), `${path} differs from the online config`).toContain(typeof url === 'string' ? new URL(url).origin : url);
    }
  });
});

/** Where `b` differs from `a`: each path and `b`'s value there. */
function differ(a: unknown, b: unknown, path = ''): [string, unknown][] {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((key) => differ((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [[path, b]];
}
