/**
 * The Node adapter: serves the app on one host and port with
 * @hono/node-server. It listens on the given host only (127.0.0.1 by
 * default in the config): exposing the port is a decision, not an accident.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';

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
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close({ forceAfterMs = 10_000 } = {}) {
      closing ??= new Promise<void>((resolve, reject) => {
        const force = setTimeout(() => server.closeAllConnections(), forceAfterMs);
        force.unref();
        server.close((error) => {
          clearTimeout(force);
          if (error) reject(error);
          else resolve();
        });
        // Keep-alive sockets with no request in flight would hold close() open for their timeout.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
