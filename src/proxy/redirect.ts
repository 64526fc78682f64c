/**
 * An upstream's redirect, as the agent may see it: resolved the way a
 * browser (WHATWG URL) resolves it against the URL that was asked, then
 * re-checked against the upstream's policy like any request, and handed
 * back as the path through the proxy, `/<upstream>/<rest>`.
 *
 * Never as sent. `Location: http://up:port\@evil.example/` is on the
 * upstream's own origin to a WHATWG parser (the backslash ends the host; the
 * rest is the path `/@evil.example/`), but an RFC 3986 parser, as in many
 * HTTP clients, reads `up:port\` as user info and evil.example as the host.
 * Whatever the agent's client is, it gets one serialisation that has a
 * single reading. And a same-origin URL is no promise that the policy
 * allows its path: `/admin` on the same host is somewhere the agent could
 * not have asked for. So the rewritten path goes through the same checks
 * as a request (parseTarget, pathAllowed), and the redirect is refused
 * (502 `redirect_refused`) when they fail.
 *
 * The proxy path rather than the upstream's URL: following it keeps the
 * agent on the proxy, where the next request is checked again; the
 * upstream's URL would send it to the upstream directly, without the
 * credential, and out of the policy.
 */
import type { Upstream } from './config.js';
import { ProxyError } from './proxy-error.js';
import { parseTarget, pathAllowed } from './request-path.js';

/** The agent's `Location` for `location` answered to a request for `requested`; throws ProxyError 502 `redirect_refused`. */
export function proxiedLocation(upstream: Upstream, requested: string, location: string): string {
  let destination: URL;
  try {
    destination = new URL(location, requested);
  } catch {
    throw refused(upstream, 'a Location that is not a URL');
  }
  if (destination.origin !== upstream.origin) throw refused(upstream, 'a redirect off its origin; the proxy does not follow or pass on redirects to other hosts');
  const base = new URL(upstream.url).pathname.replace(/\/+$/, '');
  const path = destination.pathname;
  if (path !== base && !path.startsWith(`${base}/`)) throw refused(upstream, `a redirect outside its base URL (${base})`);
  const rest = path.slice(base.length) || '/';
  const proxied = `/${upstream.name}${rest}${destination.search}`;
  let allowed: boolean;
  try {
    allowed = pathAllowed(parseTarget(proxied).decodedPath, upstream.paths);
  } catch (error) {
    if (error instanceof ProxyError) throw refused(upstream, `a redirect to a path the proxy refuses (${error.message})`);
    throw error;
  }
  if (!allowed) throw refused(upstream, `a redirect to a path its policy does not allow (allowed: ${upstream.paths.join(', ')})`);
  return proxied + destination.hash;
}

/** Names the upstream and why; never the Location itself, which the upstream (or whoever planted it) chose. */
function refused(upstream: Upstream, why: string): ProxyError {
  return new ProxyError(502, 'redirect_refused', `upstream ${upstream.name} answered with ${why}`);
}
