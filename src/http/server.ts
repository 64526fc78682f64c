/**
 * The Node adapter: serves the app on one host and port with
 * @hono/node-server. It listens on the given host only (127.0.0.1 by
 * default in the config): exposing the port is a decision, not an accident.
 */
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import { listen } from '../net/listen.js';

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

export async function startHttpServer(app: Hono, options: { host: string; port: number }): Promise<HttpServer> {
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  return listen(server, options.host, options.port);
}
