/**
 * A local HTTP receiver on 127.0.0.1 for the HTTP channels: answers each
 * request with the next status from a script (then 200) and keeps what it got.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defer } from '../runtime/helpers.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
}

export async function startReceiver(statuses: number[] = [], answer = 'ok', headers: Record<string, string> = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const script = [...statuses];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: flatten(req.headers), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(script.shift() ?? 200, { 'content-type': 'text/plain', ...headers });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
