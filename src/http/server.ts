/**
 * The Node adapter: serves the app on one host and port with
 * @hono/node-server. It listens on the given host only (127.0.0.1 by
 * default in the config): exposing the port is a decision, not an accident.
 */
import { createServer } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { listen } from '../net/listen.js';
import { hooksOnNode } from './hooks-on-node.js';

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
  const viaHono = getRequestListener(app.fetch);
  // Signed deliveries to POST /hooks/<inbox>/<source> skip Hono's layers (hooks-on-node.ts).
  const hooks = hooksOnNode(app);
  const server = createServer(
    hooks === undefined
      ? viaHono
      : (req, res) => {
          if (!hooks(req, res)) void viaHono(req, res);
        },
  );
  return listen(server, options.host, options.port);
}
