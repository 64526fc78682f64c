/**
 * The README and the other documents a newcomer reads stay true: the CLI
 * table lists every command, the package is imported by its published name,
 * every vigil.json and proxy.json shown parses, the dependency table names
 * every dependency, the LICENSE is the one package.json claims, and lines
 * that once said something false (`ctx.fetch` not wired) do not return.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { parseConfigFile } from '../../src/config/load-config.js';
import { proxyConfigSchema } from '../../src/proxy/config.js';
import { REPO_ROOT } from '../fixtures/service-process.js';

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');
const README = read('README.md');
const pkg = JSON.parse(read('package.json')) as { name: string; license: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };

/** Every Markdown file a reader meets: README, docs (not design notes' history), each example's README. */
const DOCUMENTS = [
  'README.md',
  'docs/configuration.md',
  ...readdirSync(join(REPO_ROOT, 'docs/recipes')).map((name) => `docs/recipes/${name}`),
  ...readdirSync(join(REPO_ROOT, 'examples'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(REPO_ROOT, 'examples', entry.name, 'README.md')))
    .map((entry) => `examples/${entry.name}/README.md`),
];

function codeBlocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

describe('the README', () => {
  it("the CLI table has a row for every command `vigil --help` lists", () => {
    const table = README.slice(README.indexOf('## The CLI'), README.indexOf('## Using the engine as a library'));
    for (const command of createProgram('0.0.0').commands.map((c) => c.name())) {
      expect(table, command).toMatch(new RegExp(`^\\| [^\\n]*\`${command}\\b`, 'm'));
    }
  });

  it('"Writing an agent" starts with a plain defineAgent, its event fields and both return shapes', () => {
    const section = README.slice(README.indexOf('## Writing an agent'));
    const first = codeBlocks(section, 'ts')[0]!;
    expect(first).toContain("import { defineAgent } from 'vigil-agents'");
    for (const field of ['source', 'sourceId', 'payload', 'attempts']) expect(first).toMatch(new RegExp(`//\\s+${field}\\b`));
    expect(first).toContain('return { messages: replies }');
    expect(first).toContain('return { nothing: true }');
  });

  it('"Writing an agent" shows four ways and MCP tools, each with its runnable example', () => {
    const section = README.slice(README.indexOf('## Writing an agent'), README.indexOf('## Testing your agent'));
    for (const way of ['defineAgent({ run(ctx) })', 'toolAgent({ model, tools, permissions })', 'claudeAgentSdk(', 'aiSdkModel(', 'mcpTools(']) expect(section).toContain(way);
    for (const example of ['plain-agent', 'stripe-refunds', 'claude-agent-sdk', 'ai-sdk', 'mcp-tools']) {
      expect(section).toContain(`(examples/${example}/)`);
      expect(existsSync(join(REPO_ROOT, 'examples', example, 'README.md')), example).toBe(true);
    }
  });

  it('says ctx.fetch goes through the proxy, not that it is still to be wired', () => {
    expect(README).not.toMatch(/once the runtime wires it|Until then, plain HTTP/);
    expect(README).toContain("`ctx.fetch` (and a tool's `call.fetch`) goes through the\nproxy");
  });

  it('names every dependency and dev dependency in its dependency table', () => {
    const section = README.slice(README.indexOf('## Dependencies'));
    for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter((n) => !n.startsWith('@types/') && n !== '@eslint/js' && n !== 'vite')) {
      expect(section, name).toContain(`\`${name}\``);
    }
  });
});

describe('every document', () => {
  it.each(DOCUMENTS)('%s imports the package as vigil-agents', (file) => {
    expect(read(file)).not.toMatch(/from ['"]vigil(\/testing)?['"]/);
  });

  it.each(DOCUMENTS)('%s: every vigil.json and proxy.json it shows is valid', (file) => {
    for (const block of codeBlocks(read(file), 'json')) {
      const value = JSON.parse(block) as Record<string, unknown>;
      if ('upstreams' in value) {
        const result = proxyConfigSchema.safeParse(value);
        expect(result.success, `${file}:\n${block}\n${JSON.stringify(result.error?.issues)}`).toBe(true);
      } else {
        // As vigil serve reads a file: the older kind-keyed channels too, secrets not read.
        expect(() => parseConfigFile(value, `${file}:\n${block}`)).not.toThrow();
      }
    }
  });

  it('every example config file is valid too', () => {
    for (const example of readdirSync(join(REPO_ROOT, 'examples'), { withFileTypes: true }).filter((e) => e.isDirectory())) {
      const config = `examples/${example.name}/vigil.json`;
      if (existsSync(join(REPO_ROOT, config))) expect(() => parseConfigFile(JSON.parse(read(config)), config)).not.toThrow();
      const proxy = `examples/${example.name}/proxy.json`;
      if (existsSync(join(REPO_ROOT, proxy))) expect(proxyConfigSchema.safeParse(JSON.parse(read(proxy))).success, proxy).toBe(true);
    }
  });
});

it('the package is vigil-agents, MIT, with the MIT LICENSE file', () => {
  expect(pkg.name).toBe('vigil-agents');
  expect(pkg.license).toBe('MIT');
  expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
  expect(read('LICENSE')).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
});
