/**
 * The proxy server: `/<upstream>/<path>` goes to that upstream with its
 * credential; `/_admin/*` is the revoke switch.
 *
 * node:http rather than Hono: the policy must see the request target
 * exactly as the agent sent it (Hono's Node adapter resolves `..` and
 * `%2e%2e` and rejects backslashes with its own plain-text error before a
 * handler runs), and the upstream's body is piped back as it arrives.
 *
 * Checks, in order, each a JSON refusal: unknown upstream (404), revoked
 * (403), method (403), unsafe or disallowed path (403), body over the limit
 * (413, nothing forwarded). One log line per request, never a header.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Logger } from '../observability/logger.js';
import { ADMIN_PREFIX, handleAdmin } from './admin.js';
import type { ResolvedProxyConfig } from './config.js';
import { forward, type FetchLike } from './forward.js';
import { ProxyError, sendError } from './proxy-error.js';
import { readBody } from '../http/read-body.js';
import { listen } from '../net/listen.js';
import { describeError, redactor } from './redact.js';
import { parseTarget, pathAllowed } from './request-path.js';
import { Revocations } from './revocations.js';

export interface ProxyServerOptions {
  config: ResolvedProxyConfig;
  logger: Logger;
  /** The upstream client; default the global fetch. */
  fetch?: FetchLike;
}

export interface ProxyServer {
  url: string;
  port: number;
  readonly revocations: Revocations;
  /** Upstreams, policy and credentials from a new config (SIGHUP); host, port and revocations stay as they are. */
  reload(config: ResolvedProxyConfig): void;
  /** Stops accepting, ends idle connections, waits for requests in flight; cuts what is left after `forceAfterMs` (default 10 s). */
  close(options?: { forceAfterMs?: number }): Promise<void>;
}

export async function startProxyServer(options: ProxyServerOptions): Promise<ProxyServer> {
  let config = options.config;
  let redact = redactor(config);
  const revocations = new Revocations();
  const fetchImpl = options.fetch ?? fetch;
  const logger = options.logger;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    // One config for the whole request, even if a reload lands halfway.
    const current = config;
    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const line: Record<string, unknown> = { method, path: loggedPath(rawUrl) };
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      if (rawUrl.startsWith(ADMIN_PREFIX)) {
        const result = handleAdmin(req, current, revocations);
        Object.assign(line, { admin: result.action, upstream: result.upstream, status: result.status });
        sendJson(res, result.status, result.body);
        req.resume();
        logger.info({ ...line, ms: elapsed(started) }, result.action === 'status' ? 'proxy admin: status' : `proxy admin: ${result.action} ${result.upstream}`);
        return;
      }
      const name = rawUrl.startsWith('/') ? (rawUrl.slice(1).split(/[/?]/, 1)[0] ?? '') : '';
      const upstream = current.upstreams.get(name);
      if (upstream === undefined) {
        throw new ProxyError(404, 'unknown_upstream', `no upstream named "${name.slice(0, 64)}"; requests go to /<upstream>/<path>`);
      }
      // From here the log names the upstream and the path within it, as the upstream will see it.
      Object.assign(line, { upstream: name, path: loggedPath(rawUrl.slice(1 + name.length)) || '/' });
      if (revocations.has(name)) throw new ProxyError(403, 'upstream_revoked', `upstream ${name} has been revoked`);
      if (!upstream.methods.has(method)) {
        throw new ProxyError(403, 'method_not_allowed', `${method} is not allowed for upstream ${name} (allowed: ${[...upstream.methods].join(', ')})`);
      }
      const target = parseTarget(rawUrl);
      line.path = target.path;
      if (!pathAllowed(target.decodedPath, upstream.paths)) {
        throw new ProxyError(403, 'path_not_allowed', `${target.path} is not allowed for upstream ${name} (allowed: ${upstream.paths.join(', ')})`);
      }
      const body = await readBody(req, req.headers['content-length'], current.maxBodyBytes, () => tooLarge(current.maxBodyBytes));
      if ((method === 'GET' || method === 'HEAD') && body.length > 0) throw new ProxyError(400, 'body_not_allowed', `a ${method} request cannot carry a body`);
      const { response, headers } = await forward(upstream, { method, path: target.path, query: target.query, headers: req.headers, body, signal: abort.signal }, fetchImpl);
      line.status = response.status;
      res.writeHead(response.status, headers);
      if (response.body === null || method === 'HEAD') {
        await response.body?.cancel();
        res.end();
      } else {
        // Piped as it arrives: a streamed (SSE, chunked) answer reaches the agent chunk by chunk.
        await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), res);
      }
      logger.info({ ...line, ms: elapsed(started) }, 'proxy request');
    } catch (error) {
      if (!req.complete) req.resume(); // Discard what the agent is still sending, so the refusal can be read.
      if (abort.signal.aborted && !(error instanceof ProxyError && error.code === 'upstream_timeout')) {
        logger.info({ ...line, code: 'client_closed', ms: elapsed(started) }, 'proxy request: the agent went away');
        return;
      }
      if (res.headersSent) {
        // The upstream's status is out; the body broke halfway. Cutting the connection is the only honest signal left.
        res.destroy();
        logger.warn({ ...line, code: 'stream_failed', cause: describeError(error, redact), ms: elapsed(started) }, 'proxy request: the response stream failed');
        return;
      }
      const refusal = error instanceof ProxyError ? error : new ProxyError(500, 'internal', 'internal error in the proxy');
      sendError(res, refusal);
      Object.assign(line, { status: refusal.status, code: refusal.code, ms: elapsed(started) });
      if (refusal.status >= 500) {
        const cause = refusal === error ? refusal.cause : error;
        logger.warn({ ...line, ...(cause === undefined ? {} : { cause: describeError(cause, redact) }) }, `proxy request: ${refusal.code}`);
      } else {
        logger.info(line, `proxy request refused: ${refusal.code}`);
      }
    }
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  const listening = await listen(server, config.host, config.port);
  return {
    url: listening.url,
    port: listening.port,
    revocations,
    reload(next) {
      // Requests still in flight may carry the old credentials: redact both until the next reload.
      const previous = redactor(config);
      const fresh = redactor(next);
      redact = (text) => fresh(previous(text));
      config = next;
    },
    close: (options) => listening.close(options),
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), 'cache-control': 'no-store' });
  res.end(text);
}

/** The path without the query (it may hold the agent's data), bounded so one request cannot flood the log. */
function loggedPath(rawUrl: string): string {
  const path = rawUrl.split('?', 1)[0] ?? '';
  return path.length > 512 ? `${path.slice(0, 512)}…` : path;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function tooLarge(maxBytes: number): ProxyError {
  return new ProxyError(413, 'body_too_large', `the body is larger than the proxy's limit of ${maxBytes} bytes`);
}
