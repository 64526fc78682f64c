/**
 * `vigil init` as a real process: what it writes (the plain-agent example,
 * a package.json and a vigil.json with secrets of its own), what it refuses
 * (overwriting anything), how it joins an existing package.json, and that
 * the commands then read the project's ./vigil.json without --config.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import { REPO_ROOT, ServiceHarness } from '../fixtures/service-process.js';

const harness = new ServiceHarness();
afterEach(() => harness.cleanup());

const EXAMPLE = join(REPO_ROOT, 'examples/plain-agent');
const COPIED = ['agent.ts', 'agent.test.ts', 'README.md', 'tsconfig.json', '.gitignore'];
const read = (dir: string, file: string): string => readFileSync(join(dir, file), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads whatever JSON was written and checks it field by field
type Json = Record<string, any>;
const json = (dir: string, file: string): Json => JSON.parse(read(dir, file)) as Json;

describe('a new project', () => {
  it('is the plain-agent example, with a package.json depending on vigil-agents and a vigil.json of its own', async () => {
    const parent = harness.tempDir('vigil-init-');
    const result = await harness.cli(['init', 'My App'], { cwd: parent });
    expect(result.code).toBe(0);
    const dir = join(parent, 'My App');
    expect(result.stdout).toContain(`Wrote a Vigil project to ${dir}`);
    expect(result.stdout).toContain('cd My App');
    expect(readdirSync(dir).sort()).toEqual([...COPIED, 'package.json', 'vigil.json'].sort());
    for (const file of COPIED) expect(read(dir, file), file).toBe(read(EXAMPLE, file));

    const manifest = json(dir, 'package.json');
    const own = json(REPO_ROOT, 'package.json');
    expect(manifest.name).toBe('my-app');
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies).toEqual({ 'vigil-agents': `^${own.version}` });
    expect(Object.keys(manifest.devDependencies).sort()).toEqual(['@types/node', 'tsx', 'typescript']);
    expect(manifest.scripts).toEqual(json(EXAMPLE, 'package.json').scripts);

    // A valid config, naming the agent, with secrets made for this project.
    const config = json(dir, 'vigil.json');
    const parsed = parseConfig(config);
    expect(parsed.agent).toBe('./agent.ts');
    expect(parsed.sources.github?.type).toBe('github');
    expect(String(config.token)).toMatch(/^[\w-]{32}$/);
    expect(config.sources.github.secret).not.toBe(config.token);
    const other = harness.tempDir('vigil-init-');
    expect((await harness.cli(['init', other])).code).toBe(0);
    expect(json(other, 'vigil.json').token).not.toBe(config.token);
    expect(json(other, 'vigil.json').sources.github.secret).not.toBe(config.sources.github.secret);
  });

  it('--vigil-agents with a tarball writes a file: dependency relative to the project', async () => {
    const parent = harness.tempDir('vigil-init-');
    writeFileSync(join(parent, 'vigil-agents-0.1.0.tgz'), '');
    expect((await harness.cli(['init', 'app', '--vigil-agents', './vigil-agents-0.1.0.tgz'], { cwd: parent })).code).toBe(0);
    expect(json(join(parent, 'app'), 'package.json').dependencies).toEqual({ 'vigil-agents': 'file:../vigil-agents-0.1.0.tgz' });
    const ranged = harness.tempDir('vigil-init-');
    expect((await harness.cli(['init', ranged, '--vigil-agents', '~0.1.2'])).code).toBe(0);
    expect(json(ranged, 'package.json').dependencies).toEqual({ 'vigil-agents': '~0.1.2' });
  });
});

describe('an existing folder', () => {
  it('an existing package.json gains what is missing and keeps what it has', async () => {
    const dir = harness.tempDir('vigil-init-');
    const before = { name: 'mine', scripts: { test: 'vitest' }, dependencies: { 'vigil-agents': 'file:../vigil-agents.tgz', zod: '^4' } };
    writeFileSync(join(dir, 'package.json'), JSON.stringify(before));
    const result = await harness.cli(['init'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('kept your scripts.test');
    expect(result.stdout).toContain('kept your dependencies.vigil-agents');
    expect(result.stdout).not.toMatch(/^ {2}cd /m);
    const after = json(dir, 'package.json');
    expect(after.name).toBe('mine');
    expect(after.type).toBe('module');
    expect(after.scripts).toEqual({ test: 'vitest', start: 'vigil serve', dev: 'vigil dev' });
    expect(after.dependencies).toEqual(before.dependencies);
    expect(Object.keys(after.devDependencies).sort()).toEqual(['@types/node', 'tsx', 'typescript']);
  });

  it('overwrites nothing: an existing agent.ts or vigil.json stops it with exit 2 and nothing written', async () => {
    const dir = harness.tempDir('vigil-init-');
    writeFileSync(join(dir, 'agent.ts'), '// mine\n');
    writeFileSync(join(dir, 'vigil.json'), '{}');
    const result = await harness.cli(['init', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('already has agent.ts, vigil.json');
    expect(result.stderr).toContain('nothing was written');
    expect(readdirSync(dir).sort()).toEqual(['agent.ts', 'vigil.json']);
    expect(read(dir, 'agent.ts')).toBe('// mine\n');
  });

  it('a package.json that is not JSON stops it with exit 2', async () => {
    const dir = harness.tempDir('vigil-init-');
    writeFileSync(join(dir, 'package.json'), '{ "name": ');
    const result = await harness.cli(['init', dir]);
    expect([result.code, result.stderr]).toEqual([2, expect.stringContaining('package.json is not valid JSON')]);
    expect(readdirSync(dir)).toEqual(['package.json']);
  });
});

it("without --config, the commands read the project's ./vigil.json", async () => {
  const dir = harness.tempDir('vigil-init-');
  mkdirSync(join(dir, 'elsewhere'));
  writeFileSync(join(dir, 'vigil.json'), JSON.stringify({ store: 'sqlite:./elsewhere' }));
  expect((await harness.cli(['ingest', 'alice', 'chat', 'm1'], { cwd: dir })).code).toBe(0);
  expect(readdirSync(join(dir, 'elsewhere'))).toContain('alice.db');
  // A bad ./vigil.json is reported like a bad --config, not silently replaced by the demo config.
  writeFileSync(join(dir, 'vigil.json'), JSON.stringify({ store: 'sqlite:./elsewhere', colour: 'blue' }));
  const bad = await harness.cli(['status'], { cwd: dir });
  expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('colour: unknown key')]);
});
