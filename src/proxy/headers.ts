/**
 * Which headers cross the proxy, in each direction.
 *
 * Towards the upstream: the agent's headers minus hop-by-hop ones (they
 * describe the agent's connection, not the request) and minus every header
 * that could carry a credential the agent brought itself; then the
 * configured credential header, set by the proxy alone. An agent's own
 * `Authorization` is replaced, never forwarded next to ours.
 *
 * Back to the agent: the upstream's headers minus hop-by-hop ones, minus the
 * framing fetch has already undone (it decompresses, so content-encoding and
 * content-length no longer describe the body), minus `set-cookie` (a session
 * cookie is a credential too, and the agent is not to hold any).
 */
import type { IncomingHttpHeaders } from 'node:http';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Credentials an agent might send on its own; the proxy supplies the only one that goes upstream. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** Set by fetch from the target URL and the body it sends. */
const FRAMING = new Set(['host', 'content-length', 'expect']);

/** Headers named in `Connection: a, b` are hop-by-hop too. */
function connectionListed(value: string | string[] | undefined): Set<string> {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(text.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== ''));
}

export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, credential: { header: string; value: string }): Headers {
  const listed = connectionListed(incoming.connection);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    if (HOP_BY_HOP.has(name) || listed.has(name) || CREDENTIAL_HEADERS.has(name) || FRAMING.has(name) || name === credential.header) continue;
    // fetch decompresses on its own terms; passing the agent's accept-encoding would let an upstream pick one it cannot undo.
    if (name === 'accept-encoding') continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  headers.set(credential.header, credential.value);
  return headers;
}

export function agentResponseHeaders(upstream: Headers): Record<string, string> {
  const listed = connectionListed(upstream.get('connection') ?? undefined);
  const out: Record<string, string> = {};
  upstream.forEach((value, name) => {
    if (HOP_BY_HOP.has(name) || listed.has(name) || name === 'content-encoding' || name === 'content-length' || name === 'set-cookie') return;
    out[name] = value;
  });
  return out;
}
