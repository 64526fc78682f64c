/**
 * Secrets in the config are given inline or as "env:VAR". They are resolved
 * once, when the config is loaded (resolve-config.ts): a missing variable
 * stops the service before it listens, instead of every webhook failing its
 * signature check at 3 a.m. The schema reads each secret field as a
 * SecretRef, so resolving finds every one of them, a new channel's included,
 * without a list to keep.
 */
import { MAKE_A_SECRET, MIN_SECRET_LENGTH } from '../crypto.js';
import { VigilError } from '../errors.js';

const ENV_PREFIX = 'env:';

/**
 * The secret itself: `value` unchanged, or the variable it names. `what`
 * (a config path like `sources.github.secret`) goes into the error message.
 */
export function resolveSecret(value: string, env: NodeJS.ProcessEnv = process.env, what?: string): string {
  const where = what === undefined ? '' : `${what}: `;
  if (!value.startsWith(ENV_PREFIX)) return withoutControls(value, where);
  const name = value.slice(ENV_PREFIX.length);
  if (name === '') throw new VigilError('invalid_options', `${where}"env:" must name an environment variable, as in "env:GITHUB_SECRET"`);
  const resolved = env[name];
  if (resolved === undefined || resolved === '') {
    throw new VigilError('invalid_options', `${where}environment variable ${name} is not set (the config says "env:${name}")`);
  }
  return withoutControls(resolved, where, ` (read from ${name})`);
}

// C0 controls and DEL.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * No secret has a control character; one that does was pasted or read with
 * a stray newline (`$(cat file)` keeps none, a file read whole keeps its
 * last). Refused at startup: sent in a header (a Slack bot token), a
 * newline makes the HTTP client refuse every request with an error that
 * quotes the whole header, secret and all, on every retry; in an HMAC key,
 * every signature fails. The message names the key, never the value.
 */
function withoutControls(secret: string, where: string, from = ''): string {
  if (CONTROL.test(secret)) {
    throw new VigilError('invalid_options', `${where}the secret${from} has a control character (a newline, a tab, a carriage return…), which no secret has: remove it (value not shown)`);
  }
  return secret;
}

/** `resolveSecret` for an optional setting: undefined stays undefined. */
export function resolveOptionalSecret(value: string | undefined, env: NodeJS.ProcessEnv = process.env, what?: string): string | undefined {
  return value === undefined ? undefined : resolveSecret(value, env, what);
}

/**
 * A secret that guards something: the API token, a link secret, a webhook
 * secret, the proxy's admin token. Shorter than MIN_SECRET_LENGTH is refused
 * at startup: a link or a captured delivery lets anyone try guesses offline,
 * as fast as they can compute HMACs, and no lockout can slow that down.
 * The message says how to make one, and never quotes the value.
 */
export function resolveLongSecret(value: string, env: NodeJS.ProcessEnv, what: string): string {
  const secret = resolveSecret(value, env, what);
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new VigilError(
      'invalid_options',
      `${what}: must be at least ${MIN_SECRET_LENGTH} characters, so that it cannot be guessed; make one with: ${MAKE_A_SECRET} (value not shown)`,
    );
  }
  return secret;
}

/** Characters a Bearer token may have (RFC 6750's b64token): anything else could never be sent as `Authorization: Bearer <token>`. */
const BEARER_TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/** The service's `token`: long enough, and sendable as a Bearer token. */
export function resolveApiToken(value: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (value === undefined) return undefined;
  const token = resolveLongSecret(value, env, 'token');
  if (!BEARER_TOKEN.test(token)) {
    throw new VigilError('invalid_options', `token: use only letters, digits and . _ ~ + / - (it is sent as "Authorization: Bearer <token>"); make one with: ${MAKE_A_SECRET} (value not shown)`);
  }
  return token;
}

/** What a secret must be, beyond set: any, long enough to guard something, or a sendable Bearer token. */
export type SecretKind = 'plain' | 'long' | 'bearer';

/** A secret as the config gives it (inline, or "env:NAME"), until resolve-config.ts reads it. */
export class SecretRef {
  constructor(
    readonly given: string,
    readonly kind: SecretKind,
  ) {}

  /** The secret itself; `what` (its config path) names it in an error, which never quotes the value. */
  resolve(env: NodeJS.ProcessEnv, what: string): string {
    if (this.kind === 'bearer') return resolveApiToken(this.given, env)!;
    return this.kind === 'long' ? resolveLongSecret(this.given, env, what) : resolveSecret(this.given, env, what);
  }
}
