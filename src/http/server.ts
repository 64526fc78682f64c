/**
 * The Node adapter: serves the app (app.ts: the webhook route on Node's
 * request, Hono for the rest) on one host and port. It listens on the
 * given host only (127.0.0.1 by default in the config): exposing the port
 * is a decision, not an accident.
 */
import { createServer } from 'node:http';
import { listen } from '../net/listen.js';
import type { HttpApp } from './app.js';

export interface HttpServer {
  url: string;
  port: number;
  /**
   * Stops accepting, ends idle keep-alive connections at once and waits for
   * requests in flight; connections still open after `forceAfterMs`
   * (default 10 s: a client trickling a body must not hold shutdown) are cut.
   */
  close(options?: { forceAfterMs?: number }): Promise<void>;
}

export async function startHttpServer(app: HttpApp, options: { host: string; port: number }): Promise<HttpServer> {
  return listen(createServer(app.listener), options.host, options.port);
}
