/**
 * Which headers cross the proxy, in each direction.
 *
 * Towards the upstream: the agent's headers minus hop-by-hop ones (they
 * describe the agent's connection, not the request) and minus every header
 * that could carry a credential the agent brought itself; then the
 * configured credential header, set by the proxy alone. An agent's own
 * `Authorization` is replaced, never forwarded next to ours. Method-override
 * headers pass only when they name a method the policy allows.
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

/**
 * Headers some frameworks obey in place of the request's method: a POST with
 * `X-HTTP-Method-Override: DELETE` is a DELETE to them, around the policy's
 * `methods`. Forwarded only when the method they name is one the policy allows.
 */
const METHOD_OVERRIDES = new Set(['x-http-method-override', 'x-http-method', 'x-method-override']);

function overrideAllowed(value: string | string[], methods: ReadonlySet<string>): boolean {
  const values = Array.isArray(value) ? value : [value];
  return values.every((item) => methods.has(item.trim().toUpperCase()));
}

export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, upstream: { header: string; value: string; methods: ReadonlySet<string> }): Headers {
  const listed = connectionListed(incoming.connection);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    if (HOP_BY_HOP.has(name) || listed.has(name) || CREDENTIAL_HEADERS.has(name) || FRAMING.has(name) || name === upstream.header) continue;
    if (METHOD_OVERRIDES.has(name) && !overrideAllowed(value, upstream.methods)) continue;
    // fetch decompresses on its own terms; passing the agent's accept-encoding would let an upstream pick one it cannot undo.
    if (name === 'accept-encoding') continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  headers.set(upstream.header, upstream.value);
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
