/**
 * Secrets in the config are given inline or as "env:VAR". They are resolved
 * once, at startup: a missing variable stops the service before it listens,
 * instead of every webhook failing its signature check at 3 a.m.
 */
import { VigilError } from '../errors.js';

const ENV_PREFIX = 'env:';

/**
 * The secret itself: `value` unchanged, or the variable it names. `what`
 * (a config path like `sources.github.secret`) goes into the error message.
 */
export function resolveSecret(value: string, env: NodeJS.ProcessEnv = process.env, what?: string): string {
  if (!value.startsWith(ENV_PREFIX)) return value;
  const name = value.slice(ENV_PREFIX.length);
  const where = what === undefined ? '' : `${what}: `;
  if (name === '') throw new VigilError('invalid_options', `${where}"env:" must name an environment variable, as in "env:GITHUB_SECRET"`);
  const resolved = env[name];
  if (resolved === undefined || resolved === '') {
    throw new VigilError('invalid_options', `${where}environment variable ${name} is not set (the config says "env:${name}")`);
  }
  return resolved;
}

/** `resolveSecret` for an optional setting: undefined stays undefined. */
export function resolveOptionalSecret(value: string | undefined, env: NodeJS.ProcessEnv = process.env, what?: string): string | undefined {
  return value === undefined ? undefined : resolveSecret(value, env, what);
}
