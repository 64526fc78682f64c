/**
 * Listening and closing for any node:http server of ours (the service and
 * the credential proxy): listen on exactly the host asked for, and close by
 * draining requests in flight, with a deadline so a client trickling a body
 * cannot hold shutdown.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  url: string;
  port: number;
  /** Idempotent: every call returns the same promise. */
  close(options?: { forceAfterMs?: number }): Promise<void>;
}

export async function listen(server: Server, host: string, port: number): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${hostInUrl}:${bound}`,
    port: bound,
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
