/**
 * What every fake shares: a plain Node HTTP server on 127.0.0.1 (port 0
 * for a free one in tests, a fixed one for `npm run fakes`), the request's
 * body read whole before the handler sees it, one log line per answer
 * (`POST /v1/refunds → 200  refunded ch_1`) when asked for, and a close
 * that also ends requests still open (a stream, a held answer).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeOptions {
  /** The port to listen on; 0 (the default) takes a free one. */
  port?: number;
  /** Called with one line per answer: method, path, status and what the fake did. */
  log?: (line: string) => void;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body as text ('' when there was none). */
  raw: string;
}

/** `note(text)` adds what the fake did to the request's log line. */
export type FakeHandler = (request: FakeRequest, res: ServerResponse, note: (text: string) => void) => void | Promise<void>;

export interface Listening {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function listenFake(options: FakeOptions, handle: FakeHandler): Promise<Listening> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const request: FakeRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') };
      let noted = '';
      res.on('finish', () => options.log?.(`${request.method} ${request.path} → ${res.statusCode}${noted === '' ? '' : `  ${noted}`}`));
      Promise.resolve(handle(request, res, (text) => void (noted = text))).catch((error: unknown) => {
        // A fake that breaks says so in its answer, never leaves the caller hanging.
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `fake: ${String(error)}` }));
        else res.destroy();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return; // the caller is gone: nobody reads the answer
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** The body as JSON, or undefined when it is empty or not JSON. */
export function parseJson(raw: string): unknown {
  try {
    return raw === '' ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    return undefined;
  }
}

/** A text on one log line: line breaks and other control characters escaped, nothing else. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => (c === '\n' ? '\\n' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
