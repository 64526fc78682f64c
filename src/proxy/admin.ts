/**
 * `/_admin/*`: revoke and restore an upstream, and see which are cut, behind
 * a bearer token of their own. Without `adminToken` in the config these
 * endpoints are off (403), never open: an agent can reach the proxy's port,
 * and restoring a revoked credential must not be something it can do.
 */
import type { IncomingMessage } from 'node:http';
import { sameSecret } from '../crypto.js';
import type { ResolvedProxyConfig } from './config.js';
import { ProxyError } from './proxy-error.js';
import type { Revocations } from './revocations.js';

export const ADMIN_PREFIX = '/_admin/';

export interface AdminResult {
  status: 200;
  body: unknown;
  /** For the log line: what was done to which upstream. */
  action: string;
  upstream?: string;
}

export function handleAdmin(req: IncomingMessage, config: ResolvedProxyConfig, revocations: Revocations): AdminResult {
  if (config.adminToken === undefined) {
    throw new ProxyError(403, 'admin_disabled', 'the admin endpoints are disabled: set "adminToken" in the proxy config to enable them');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (match === null || !sameSecret(config.adminToken, match[1] as string)) {
    throw new ProxyError(401, 'unauthorized', 'a valid "Authorization: Bearer <adminToken>" header is required', { 'www-authenticate': 'Bearer' });
  }
  const path = (req.url ?? '').split('?')[0]!.slice(ADMIN_PREFIX.length);
  const method = req.method ?? 'GET';
  if (path === 'status') {
    if (method !== 'GET') throw notAllowed(method, 'GET');
    return { status: 200, action: 'status', body: status(config, revocations) };
  }
  const action = /^(revoke|restore)\/([^/]+)$/.exec(path);
  if (action === null) throw new ProxyError(404, 'not_found', 'admin endpoints: POST /_admin/revoke/<upstream>, POST /_admin/restore/<upstream>, GET /_admin/status');
  if (method !== 'POST') throw notAllowed(method, 'POST');
  const [, verb, name] = action as unknown as [string, 'revoke' | 'restore', string];
  if (!config.upstreams.has(name)) throw new ProxyError(404, 'unknown_upstream', `no upstream named "${name}" in the proxy config`);
  if (verb === 'revoke') revocations.revoke(name);
  else revocations.restore(name);
  return { status: 200, action: verb, upstream: name, body: { upstream: name, revoked: verb === 'revoke' } };
}

/** Names, URLs, policy and state; never the credential. */
function status(config: ResolvedProxyConfig, revocations: Revocations): unknown {
  return {
    upstreams: [...config.upstreams.values()].map((upstream) => ({
      name: upstream.name,
      url: upstream.url,
      header: upstream.header,
      methods: [...upstream.methods],
      paths: upstream.paths,
      ...(upstream.forwardHeaders === null ? {} : { forwardHeaders: [...upstream.forwardHeaders] }),
      revoked: revocations.has(upstream.name),
    })),
  };
}

function notAllowed(method: string, allowed: string): ProxyError {
  return new ProxyError(405, 'method_not_allowed', `${method} is not allowed here; use ${allowed}`, { allow: allowed });
}
