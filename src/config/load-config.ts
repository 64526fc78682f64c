/**
 * Reads a `vigil serve` config (`.json`, `.js`/`.mjs` default export, or
 * `.ts`), validates it with the zod schema and resolves it (resolve-config.ts:
 * its secrets read, once). Every problem is reported at once, each naming
 * its field (`sources.github.secret: required`), so a bad config costs one
 * edit, not one per restart.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { DEFAULT_STORE_URL, resolveStoreUrl } from '../store/index.js';
import { configSchema, type ConfigFile, type ServiceConfigInput } from './schema.js';
import { ConfigError } from './config-error.js';
import { describeIssue } from './describe-issue.js';
import { defaultExport, importModule } from './import-module.js';
import { fromKindKeyed } from './kind-keyed-channels.js';
import { resolveConfig, type ServiceConfig } from './resolve-config.js';

export { ConfigError };

export type { ServiceConfig };

export interface LoadedConfig<C = ServiceConfig> {
  config: C;
  /** The file it came from, or null for the embedded default. */
  file: string | null;
}

/**
 * The embedded default: SQLite under ./data, 127.0.0.1:8787, the example
 * agent, the console channel, an outbox paced at 5 s instead of an hour. It carries a `demo` GitHub-style source and a
 * token whose secrets are public (they are printed in the README), which is
 * why it listens on 127.0.0.1 only; anything real passes --config.
 */
export const DEMO_SECRET = 'vigil-demo-secret-everyone-knows-this';
export const DEMO_TOKEN = 'vigil-demo-token-everyone-knows-this';

export function defaultConfigInput(): ServiceConfigInput {
  return {
    store: DEFAULT_STORE_URL,
    host: '127.0.0.1',
    port: 8787,
    token: DEMO_TOKEN,
    sources: { demo: { type: 'github', secret: DEMO_SECRET } },
    channels: { console: { type: 'console' } },
    // The engine paces the outbox at one message an hour; a demo you watch
    // in a terminal needs to see the second reply too.
    engine: { outboxGapMs: 5_000 },
  };
}

/** The config `vigil serve` (and every command taking --config) reads when none is named: what `vigil init` writes. */
export const DEFAULT_CONFIG_FILE = 'vigil.json';

/**
 * Loads, validates and resolves `file`; without one, `./vigil.json` if the
 * working directory has it (a project made by `vigil init`), else the
 * embedded default. Secrets are read from `env` here, and nowhere after.
 */
export async function loadConfig(file?: string, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Promise<LoadedConfig> {
  const loaded = await loadConfigFile(file, cwd);
  return { config: resolveConfig(loaded.config, env, loaded.file ?? 'the default config'), file: loaded.file };
}

/**
 * The same, validated but with its secrets left unread: for the commands
 * that only open the store (`vigil status`), which must not need the
 * service's secrets in their environment.
 */
export async function loadConfigFile(file?: string, cwd = process.cwd()): Promise<LoadedConfig<ConfigFile>> {
  if (file === undefined) {
    const local = resolve(cwd, DEFAULT_CONFIG_FILE);
    if (!existsSync(local)) return { config: parseConfigFile(defaultConfigInput(), 'the default config'), file: null };
    file = local;
  }
  const path = resolve(file);
  const raw = await readConfigFile(path);
  const config = parseConfigFile(raw, path);
  return { config: resolvePaths(config, dirname(path)), file: path };
}

/** Validates and resolves an object; `origin` names it in the error. */
export function parseConfig(raw: unknown, origin = 'config', env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  return resolveConfig(parseConfigFile(raw, origin), env, origin);
}

/** Validates an object against the schema (channels in the older kind-keyed form read as named ones); `origin` names it in the error. */
export function parseConfigFile(raw: unknown, origin = 'config'): ConfigFile {
  const result = configSchema.safeParse(fromKindKeyed(raw));
  if (result.success) return result.data;
  throw new ConfigError(`${origin} is not a valid Vigil config:`, result.error.issues.map(describeIssue));
}

async function readConfigFile(path: string): Promise<unknown> {
  const ext = extname(path);
  if (ext === '.json') {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read config ${path}: ${(error as Error).message}`, [], { cause: error });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new ConfigError(`config ${path} is not valid JSON: ${(error as Error).message}`, [], { cause: error });
    }
  }
  if (!['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'].includes(ext)) {
    throw new ConfigError(`config ${path}: use a .json, .js, .mjs or .ts file`);
  }
  let module: Record<string, unknown>;
  try {
    module = await importModule(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = code === 'ERR_MODULE_NOT_FOUND' ? `config ${path} not found` : `cannot load config ${path}: ${(error as Error).message}`;
    throw new ConfigError(message, [], { cause: error });
  }
  let value = defaultExport(module);
  // A default export may be a (possibly async) function building the config.
  if (typeof value === 'function') value = await (value as () => unknown)();
  if (value === undefined) throw new ConfigError(`config ${path} has no default export`);
  return value;
}

/**
 * Paths in a config file are relative to the file, not to wherever
 * `vigil serve` was started: `--config /etc/vigil/vigil.json` then means the
 * same thing from any directory. The embedded default stays relative to the
 * working directory (./data where you ran `npm start`).
 */
function resolvePaths(config: ConfigFile, base: string): ConfigFile {
  const resolved = { ...config, store: resolveStoreUrl(config.store, base) };
  if (config.agent !== undefined && !isAbsolute(config.agent)) {
    resolved.agent = resolve(base, config.agent);
  }
  return resolved;
}
