/**
 * One request to one upstream, with its credential, and no redirect followed.
 *
 * `redirect: 'manual'` hands back the 3xx itself. Its Location is never
 * passed on as sent (src/proxy/redirect.ts): resolved, re-checked against
 * the policy and rewritten to the path through the proxy, or refused (502).
 * A redirect off the upstream's origin is how an upstream (or an attacker
 * who controls a URL on it) would send the agent somewhere the policy
 * never named.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Upstream } from './config.js';
import { agentResponseHeaders, upstreamRequestHeaders } from './headers.js';
import { ProxyError } from './proxy-error.js';
import { proxiedLocation } from './redirect.js';

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

/** The upstream's answer and the headers to send the agent (hop-by-hop and cookies gone, a redirect's Location rewritten). */
export interface Forwarded {
  response: Response;
  headers: Record<string, string>;
}

export async function forward(upstream: Upstream, request: ForwardRequest, fetchImpl: FetchLike = fetch): Promise<Forwarded> {
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
  const headers = agentResponseHeaders(response.headers);
  if (response.status >= 300 && response.status < 400 && headers.location !== undefined) {
    try {
      headers.location = proxiedLocation(upstream, target, headers.location);
    } catch (error) {
      await response.body?.cancel().catch(() => undefined);
      throw error;
    }
  }
  return { response, headers };
}
