/**
 * One request to one upstream, with its credential, and no redirect followed.
 *
 * `redirect: 'manual'` hands back the 3xx itself. A redirect to another
 * origin is refused (502) rather than passed on: it is how an upstream (or
 * an attacker who controls a URL on it) would send the agent somewhere the
 * policy never named. One within the upstream's origin is returned as it
 * came; the agent's next request goes through the path checks again.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Upstream } from './config.js';
import { upstreamRequestHeaders } from './headers.js';
import { ProxyError } from './proxy-error.js';

export interface ForwardRequest {
  method: string;
  /** The path after the upstream name, as the agent sent it (validated). */
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Aborted when the agent goes away: the upstream request (and its body stream) stop too. */
  signal: AbortSignal;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export async function forward(upstream: Upstream, request: ForwardRequest, fetchImpl: FetchLike = fetch): Promise<Response> {
  const target = `${upstream.url}${request.path}${request.query === '' ? '' : `?${request.query}`}`;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), upstream.timeoutMs);
  let response: Response;
  try {
    response = await fetchImpl(target, {
      method: request.method,
      headers: upstreamRequestHeaders(request.headers, upstream),
      // GET and HEAD carry no body (fetch refuses one); the server has refused a non-empty one already.
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(request.body),
      redirect: 'manual',
      signal: AbortSignal.any([request.signal, timeout.signal]),
    });
  } catch (error) {
    if (timeout.signal.aborted) {
      throw new ProxyError(504, 'upstream_timeout', `upstream ${upstream.name} sent no response within ${upstream.timeoutMs} ms`);
    }
    // The cause stays out of the message: it is the proxy's to log (redacted), not the agent's to read.
    throw new ProxyError(502, 'upstream_unreachable', `upstream ${upstream.name} could not be reached`, {}, error);
  } finally {
    clearTimeout(timer);
  }
  if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
    const location = response.headers.get('location') as string;
    let destination: URL | null;
    try {
      destination = new URL(location, target);
    } catch {
      destination = null;
    }
    if (destination === null || destination.origin !== upstream.origin) {
      await response.body?.cancel().catch(() => undefined);
      throw new ProxyError(502, 'redirect_refused', `upstream ${upstream.name} answered ${response.status} with a redirect off its origin; the proxy does not follow or pass on redirects to other hosts`);
    }
  }
  return response;
}
