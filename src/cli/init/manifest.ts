/**
 * The two files `vigil init` makes rather than copies: package.json (its
 * name, how it depends on vigil-agents) and vigil.json (secrets made for
 * this project, never a shared default someone could know).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { DEFAULT_STORE_URL } from '../../store/index.js';

/** What the project needs at its side: tsx runs the TypeScript, typescript checks it, node:test runs the tests. */
interface OwnPackage {
  version: string;
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function ownPackage(): OwnPackage {
  return JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as OwnPackage;
}

export type PackageJson = Record<string, unknown> & {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

/**
 * How the project's package.json names vigil-agents. A version range is
 * written as it is; a local tarball or directory becomes `file:` plus its
 * path from the project (npm reads `file:` paths from the package.json's
 * folder, not from where `vigil init` ran).
 */
export function dependencySpec(spec: string | undefined, projectDir: string, cwd = process.cwd()): string {
  if (spec === undefined) return `^${ownPackage().version}`;
  const path = spec.startsWith('file:') ? spec.slice('file:'.length) : spec;
  const looksLikePath = spec.startsWith('file:') || isAbsolute(path) || path.startsWith('.') || /\.(tgz|tar\.gz)$/.test(path);
  if (!looksLikePath) return spec;
  const fromProject = relative(projectDir, resolve(cwd, path)).split(sep).join('/');
  return `file:${fromProject.startsWith('.') ? fromProject : `./${fromProject}`}`;
}

/** An npm package name from the folder's name (lowercase, url-safe), or a plain one. */
export function packageName(projectDir: string): string {
  const name = basename(resolve(projectDir))
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '');
  return name === '' ? 'vigil-agent' : name.slice(0, 214);
}

/** The scripts and dependencies a project made by `vigil init` has. */
export function projectManifest(name: string, vigilAgents: string): PackageJson {
  const own = ownPackage();
  const dev = own.devDependencies ?? {};
  return {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      start: 'vigil serve',
      dev: 'vigil dev',
      test: 'tsc && node --import tsx --test agent.test.ts',
    },
    dependencies: { 'vigil-agents': vigilAgents },
    devDependencies: {
      '@types/node': dev['@types/node'] ?? '^20.0.0',
      tsx: own.dependencies.tsx ?? '^4.0.0',
      typescript: dev.typescript ?? '^5.9.0',
    },
    // npm 11 asks which dependencies may run install scripts: SQLite's native module and tsx's esbuild do.
    allowScripts: { 'better-sqlite3': true, esbuild: true },
  };
}

/**
 * An existing package.json gains what is missing and keeps everything it
 * has: a script or dependency of the same name is left alone and reported,
 * so `vigil init` never rewrites a decision someone already made.
 */
export function mergeManifest(existing: PackageJson, wanted: PackageJson): { merged: PackageJson; kept: string[] } {
  const merged: PackageJson = { ...existing };
  const kept: string[] = [];
  if (merged.type === undefined) merged.type = wanted.type;
  for (const section of ['scripts', 'dependencies', 'devDependencies'] as const) {
    const have = { ...(existing[section] ?? {}) };
    for (const [key, value] of Object.entries(wanted[section] ?? {})) {
      const elsewhere = section === 'devDependencies' && existing.dependencies?.[key] !== undefined;
      if (have[key] === undefined && !elsewhere) have[key] = value;
      else if (have[key] !== undefined && have[key] !== value) kept.push(`${section}.${key}`);
    }
    merged[section] = have;
  }
  if (merged.allowScripts === undefined) merged.allowScripts = wanted.allowScripts;
  return { merged, kept };
}

/** vigil.json: the built-in defaults spelled out, with this project's agent, a GitHub source and new secrets. */
export function serviceConfig(): Record<string, unknown> {
  const secret = (): string => randomBytes(24).toString('base64url');
  return {
    store: DEFAULT_STORE_URL,
    host: '127.0.0.1',
    port: 8787,
    agent: './agent.ts',
    token: secret(),
    sources: { github: { type: 'github', secret: secret() } },
    channels: { console: { type: 'console' } },
    // One message every 5 s while you try it out; leave it out (one an hour) for people.
    engine: { outboxGapMs: 5_000 },
  };
}
