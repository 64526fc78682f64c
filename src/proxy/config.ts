/**
 * The `vigil proxy` configuration: named upstreams, each with the one
 * credential header it injects and what an agent may do with it (methods,
 * path prefixes). Validated with zod like the service config, so a bad file
 * stops the proxy before it listens, with every bad field named at once.
 *
 * Secrets ("env:VAR" or inline) are resolved here, once: a missing variable
 * is a startup error, not a 500 on the first request.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { describeIssue } from '../config/describe-issue.js';
import { ConfigError } from '../config/config-error.js';
import { resolveLongSecret, resolveSecret } from '../config/secrets.js';
import { MIN_SECRET_LENGTH } from '../crypto.js';
import { neverForwarded } from './headers.js';

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Upstream names are the first path segment of every request: a slug, so they need no escaping and cannot collide with `/_admin`. */
const UPSTREAM_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** A header name as HTTP defines it (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** Hop-by-hop and framing headers the proxy manages itself: injecting a credential into one of them would be lost or dangerous. */
const RESERVED_HEADERS = ['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length', 'proxy-connection'];

const upstreamSchema = z
  .object({
    /** The upstream's base URL; a request for `/<name>/<rest>` goes to `<url>/<rest>`. */
    url: z
      .string()
      .url()
      .refine((value) => /^https?:$/.test(new URL(value).protocol), { message: 'must be an http:// or https:// URL' })
      .refine((value) => {
        const url = new URL(value);
        return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
      }, { message: 'must not contain credentials, a query or a fragment (put the credential in "value")' }),
    /** The header carrying the credential, e.g. "authorization" or "x-api-key". */
    header: z
      .string()
      .transform((value) => value.toLowerCase())
      .pipe(
        z
          .string()
          .regex(HEADER_NAME, 'must be an HTTP header name')
          .refine((name) => !RESERVED_HEADERS.includes(name), { message: `must not be one of ${RESERVED_HEADERS.join(', ')}` }),
      ),
    /** The header's value: the credential, e.g. "Bearer ghp_…"; inline or "env:VAR". */
    value: z.string().min(1, 'must not be empty'),
    /** Methods the agent may use; anything else is a 403. Default: GET only. */
    methods: z
      .array(z.string().transform((value) => value.toUpperCase()).pipe(z.enum(METHODS)))
      .min(1, 'list at least one method')
      .default(['GET']),
    /**
     * Path prefixes the agent may reach, checked after normalisation. A prefix
     * ending in "/" allows everything below it; one without ("/user") allows
     * that path and its sub-paths ("/user/repos") but not "/users". "/" allows all.
     */
    paths: z.array(z.string().startsWith('/', 'must start with "/"')).min(1, 'list at least one path prefix ("/" for all)'),
    /** Time allowed for the upstream's response headers; the body may then stream for as long as it takes. */
    timeoutMs: z.number().int().positive().default(30_000),
    /**
     * A stricter policy for the agent's headers: only these names are
     * forwarded (the credential header is always set by the proxy). Without
     * it every header is forwarded except hop-by-hop ones, credentials and
     * those that reroute a request (X-Forwarded-*, Forwarded,
     * X-Original-URL, …), which no list can bring back.
     */
    forwardHeaders: z
      .array(
        z
          .string()
          .transform((value) => value.toLowerCase())
          .pipe(
            z
              .string()
              .regex(HEADER_NAME, 'must be an HTTP header name')
              .refine((name) => !neverForwarded(name), { message: 'is never forwarded (hop-by-hop, a credential, set by the proxy, or a header that reroutes a request); remove it' }),
          ),
      )
      .optional(),
  })
  .strict();

/** The shortest admin token the proxy accepts (src/crypto.ts). */
export const MIN_ADMIN_TOKEN_LENGTH = MIN_SECRET_LENGTH;

export const proxyConfigSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8788),
    /** Largest request body forwarded; larger ones are refused (413) before anything reaches the upstream. */
    maxBodyBytes: z.number().int().positive().default(1_048_576),
    /** Bearer token for `/_admin/*` (revoke, restore, status), at least MIN_ADMIN_TOKEN_LENGTH characters; without one those endpoints are off. */
    adminToken: z.string().min(1, 'must not be empty').optional(),
    upstreams: z.record(z.string().regex(UPSTREAM_NAME, 'upstream names are lowercase [a-z0-9_-], starting with a letter or digit'), upstreamSchema),
    log: z.object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') }).strict().default({ level: 'info' }),
  })
  .strict();

export type ProxyConfigInput = z.input<typeof proxyConfigSchema>;
export type ProxyConfig = z.output<typeof proxyConfigSchema>;

/** One upstream with its secret resolved: what the server works with. */
export interface Upstream {
  name: string;
  /** The base URL, without a trailing slash. */
  url: string;
  origin: string;
  header: string;
  /** The credential itself. Never logged, never put in a response. */
  value: string;
  methods: ReadonlySet<string>;
  paths: readonly string[];
  timeoutMs: number;
  /** The agent headers this upstream accepts, or null for all but the never-forwarded ones. */
  forwardHeaders: ReadonlySet<string> | null;
}

export interface ResolvedProxyConfig {
  host: string;
  port: number;
  maxBodyBytes: number;
  adminToken: string | undefined;
  upstreams: ReadonlyMap<string, Upstream>;
  logLevel: ProxyConfig['log']['level'];
}

/** Validates an object against the schema; `origin` names it in the error. */
export function parseProxyConfig(raw: unknown, origin = 'proxy config'): ProxyConfig {
  const result = proxyConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(`${origin} is not a valid proxy config:`, result.error.issues.map(describeIssue));
}

/**
 * Resolves the secrets. A credential that is not a valid header value (a
 * newline, a control character) would make fetch throw an error that quotes
 * it: refused here, with a message that names the field and not the value.
 */
export function resolveProxyConfig(config: ProxyConfig, env: NodeJS.ProcessEnv = process.env): ResolvedProxyConfig {
  const upstreams = new Map<string, Upstream>();
  for (const [name, upstream] of Object.entries(config.upstreams)) {
    const where = `upstreams.${name}.value`;
    const value = resolveSecret(upstream.value, env, where);
    if (!/^[\t\x20-\x7e\x80-\xff]+$/.test(value) || value.trim() !== value) {
      throw new ConfigError(`${where}: the credential is not a valid HTTP header value (control characters, a line break or surrounding spaces); value not shown`);
    }
    const url = new URL(upstream.url);
    upstreams.set(name, {
      name,
      url: upstream.url.replace(/\/+$/, ''),
      origin: url.origin,
      header: upstream.header,
      value,
      methods: new Set(upstream.methods),
      paths: upstream.paths,
      timeoutMs: upstream.timeoutMs,
      forwardHeaders: upstream.forwardHeaders === undefined ? null : new Set(upstream.forwardHeaders),
    });
  }
  // The agent can reach the proxy's port, so it can guess at the admin token
  // as fast as the proxy answers: it must be long (resolveLongSecret). Not a
  // lockout of wrong guesses, as the service's API has: the agent shares the
  // operator's address, and could lock the operator out of the kill switch
  // exactly when it is needed.
  const adminToken = config.adminToken === undefined ? undefined : resolveLongSecret(config.adminToken, env, 'adminToken');
  return {
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    adminToken,
    upstreams,
    logLevel: config.log.level,
  };
}

/**
 * Reads a JSON proxy config. JSON only (no .ts modules as `vigil serve`
 * accepts): the file holds "env:" references and policy, nothing to compute.
 */
export async function loadProxyConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedProxyConfig> {
  const path = resolve(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read proxy config ${path}: ${(error as Error).message}`, [], { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text) as unknown;
  } catch (error) {
    // Position only: newer Node versions quote the text around the error, which may be an inline credential.
    const where = /at position \d+(?: \(line \d+ column \d+\))?/.exec((error as Error).message)?.[0];
    throw new ConfigError(`proxy config ${path} is not valid JSON${where === undefined ? '' : ` (${where})`}`, [], { cause: error });
  }
  return resolveProxyConfig(parseProxyConfig(raw, path), env);
}
