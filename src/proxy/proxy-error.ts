/**
 * Every refusal the proxy makes itself: a stable `code` the agent can branch
 * on and a message a person can read, sent as the same
 * `{ "error": { "code", "message" } }` body as the service's API
 * (src/http/http-error.ts). Its own class because the proxy also answers 502
 * and 504, which the service never does.
 *
 * Messages are built from the agent's own request and the config's names,
 * never from an upstream's or fetch's error text: those could quote a header.
 */
import type { ServerResponse } from 'node:http';

export type ProxyStatus = 400 | 401 | 403 | 404 | 405 | 413 | 500 | 502 | 504;

export class ProxyError extends Error {
  constructor(
    readonly status: ProxyStatus,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** What went wrong underneath (a fetch failure): for the proxy's log, redacted, never for the body. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ProxyError';
  }
}

export function sendError(res: ServerResponse, error: ProxyError): void {
  const body = JSON.stringify({ error: { code: error.code, message: error.message } });
  if (res.headersSent) {
    // Too late for a status: the upstream's has gone out. Cutting the connection tells the agent the body is incomplete.
    res.destroy();
    return;
  }
  res.writeHead(error.status, {
    ...error.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
  });
  res.end(body);
}
