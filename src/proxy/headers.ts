/**
 * Which headers cross the proxy, in each direction.
 *
 * Towards the upstream: the agent's headers minus hop-by-hop ones (they
 * describe the agent's connection, not the request) and minus every header
 * that could carry a credential the agent brought itself; then the
 * configured credential header, set by the proxy alone. An agent's own
 * `Authorization` is replaced, never forwarded next to ours. Method-override
 * headers pass only when they name a method the policy allows, and headers
 * that reroute a request (below) never pass. Everything else does: model
 * APIs (`anthropic-version`, `anthropic-beta`, `x-stainless-*`) and MCP
 * over Streamable HTTP (`mcp-session-id`, `mcp-protocol-version`,
 * `last-event-id`, `accept: text/event-stream`) need their own headers, and
 * a list of known ones would break the next protocol. An upstream that wants
 * fewer lists them (`forwardHeaders`, src/proxy/config.ts).
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

/**
 * Set by fetch from the target URL and the body it sends. And
 * `accept-encoding`: fetch decompresses on its own terms; passing the
 * agent's would let an upstream pick an encoding fetch cannot undo.
 */
const FRAMING = new Set(['host', 'content-length', 'expect', 'accept-encoding']);

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

/**
 * Headers that some servers, gateways and frameworks obey in place of the
 * request line: IIS and Symfony route by `X-Original-URL`/`X-Rewrite-URL`,
 * Spring and many gateways by `X-Forwarded-Prefix`/`-Host`/`-Proto`,
 * RFC 7239's `Forwarded` says the same, and `X-Real-IP` (with its kin) lets
 * a request pass for coming from another address, which IP allowlists and
 * rate limits trust. An agent sending them could reach a path or host the
 * policy's check never saw, so they never cross the proxy, whatever the
 * upstream's allowlist says. The proxy itself adds none of them: it is the
 * agent's stand-in, not a gateway the upstream needs to know about.
 */
const REROUTING = new Set([
  'x-original-url',
  'x-rewrite-url',
  'x-original-uri',
  'x-original-host',
  'x-http-host-override',
  'x-host',
  'forwarded',
  'x-forwarded',
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
]);

/** Also every `X-Forwarded-*`: For, Host, Proto, Port, Prefix, Server, Path, Uri and whatever a framework invents next. */
export function reroutes(name: string): boolean {
  return REROUTING.has(name) || name.startsWith('x-forwarded-');
}

/**
 * Headers the proxy never forwards from the agent, whatever an upstream's
 * allowlist says: the config refuses to list them, so an allowlist never
 * seems to promise one.
 */
export function neverForwarded(name: string): boolean {
  return HOP_BY_HOP.has(name) || CREDENTIAL_HEADERS.has(name) || FRAMING.has(name) || reroutes(name);
}

function overrideAllowed(value: string | string[], methods: ReadonlySet<string>): boolean {
  const values = Array.isArray(value) ? value : [value];
  return values.every((item) => methods.has(item.trim().toUpperCase()));
}

export interface HeaderPolicy {
  header: string;
  value: string;
  methods: ReadonlySet<string>;
  /** When set, only these (lower-case) names are forwarded from the agent, and still none of the never-forwarded ones. */
  forwardHeaders: ReadonlySet<string> | null;
}

export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, upstream: HeaderPolicy): Headers {
  const listed = connectionListed(incoming.connection);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    if (neverForwarded(name) || listed.has(name) || name === upstream.header) continue;
    if (upstream.forwardHeaders !== null && !upstream.forwardHeaders.has(name)) continue;
    if (METHOD_OVERRIDES.has(name) && !overrideAllowed(value, upstream.methods)) continue;
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
