/**
 * The config file, validated (schema.ts), becomes the ServiceConfig the
 * service runs on: every secret read from where the file says (inline or
 * `env:NAME`), every problem with them reported at once, the channels a
 * list of named channels with their audience, the sources ready for the
 * webhook routes, and what the built-in demo agent reads from the
 * environment. After this, nothing in the service reads `process.env`.
 */
import type { ChannelSpec } from '../channels/create-channels.js';
import type { SourceSpec } from '../http/webhooks/index.js';
import { VigilError } from '../errors.js';
import { ConfigError } from './config-error.js';
import type { ConfigFile } from './schema.js';
import { SecretRef } from './secrets.js';

/** What the built-in demo agent (no `agent` in the config) reads from the environment: with a key, Claude decides (src/demo/). */
export interface DemoSettings {
  claude: { apiKey: string; model?: string; baseURL?: string } | null;
}

export type ServiceConfig = Omit<ConfigFile, 'token' | 'linkSecret' | 'sources' | 'channels'> & {
  /** The API's and the dashboard's Bearer token; undefined: both are off. */
  token: string | undefined;
  /** Signs one-tap approval links: `linkSecret`, else the token; '' when there is neither (links off). */
  linkSecret: string;
  sources: Record<string, SourceSpec>;
  channels: ChannelSpec[];
  demo: DemoSettings;
};

/** Reads every secret of `file` from `env`; a ConfigError naming each one that cannot be read. */
export function resolveConfig(file: ConfigFile, env: NodeJS.ProcessEnv, origin = 'config'): ServiceConfig {
  const problems: string[] = [];
  const read = <T>(value: T, path: string): Resolved<T> => readSecrets(value, path, env, problems);
  const token = read(file.token, 'token');
  const linkSecret = file.linkSecret === undefined ? (token ?? '') : read(file.linkSecret, 'linkSecret');
  // Typed, not cast: a schema and a spec that drift apart fail to compile here.
  const sources: Record<string, SourceSpec> = read(file.sources, 'sources');
  const channels: ChannelSpec[] = Object.entries(read(file.channels, 'channels')).map(([name, channel]) => ({ name, ...channel }));
  if (problems.length > 0) throw new ConfigError(`${origin}: some secrets cannot be read:`, problems);
  return { ...file, token, linkSecret, sources, channels, demo: demoSettings(file, env) };
}

/** A value with each SecretRef in it read. */
export type Resolved<T> = T extends SecretRef ? string : T extends readonly (infer U)[] ? Resolved<U>[] : T extends object ? { [K in keyof T]: Resolved<T[K]> } : T;

function readSecrets<T>(value: T, path: string, env: NodeJS.ProcessEnv, problems: string[]): Resolved<T> {
  if (value instanceof SecretRef) {
    try {
      return value.resolve(env, path) as Resolved<T>;
    } catch (error) {
      if (!(error instanceof VigilError)) throw error;
      problems.push(error.message.startsWith(`${path}:`) ? error.message : `${path}: ${error.message}`);
      return '' as Resolved<T>;
    }
  }
  if (Array.isArray(value)) return value.map((item, index) => readSecrets(item, `${path}.${index}`, env, problems)) as Resolved<T>;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, readSecrets(item, `${path}.${key}`, env, problems)])) as Resolved<T>;
  }
  return value as Resolved<T>;
}

function demoSettings(file: ConfigFile, env: NodeJS.ProcessEnv): DemoSettings {
  const apiKey = env.ANTHROPIC_API_KEY;
  if (file.agent !== undefined || apiKey === undefined || apiKey === '') return { claude: null };
  const model = env.VIGIL_CLAUDE_MODEL;
  const baseURL = env.ANTHROPIC_BASE_URL;
  return { claude: { apiKey, ...(model ? { model } : {}), ...(baseURL ? { baseURL } : {}) } };
}
