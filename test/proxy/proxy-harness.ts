/**
 * The proxy's tests on loopback: a fake upstream (node:http, records every
 * request it receives, answers as the test says), the proxy itself with its
 * log captured, and a raw HTTP client. The raw client matters: fetch and URL
 * resolve `..` and `%2e%2e` before sending, so they could never send the
 * tricks the proxy must refuse. Everything started is closed in `cleanup()`.
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { parseProxyConfig, resolveProxyConfig, startProxyServer, type ProxyConfigInput, type ProxyServer } from '../../src/proxy/index.js';
import { createLogger } from '../../src/observability/logger.js';

export const CREDENTIAL = 'Bearer ghp_SECRET-credential-0123456789';
export const ADMIN_TOKEN = 'admin-token-0123456789abcdef0123456789';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface FakeUpstream {
  url: string;
  received: Received[];
  /** How it answers; default 200 `{"ok":true}`. */
  handler: Handler;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The raw header block as sent, for "the credential is in no header" checks. */
  rawHeaders: string[];
  body: string;
}

export class ProxyHarness {
  private readonly servers: Server[] = [];
  private readonly proxies: ProxyServer[] = [];
  readonly logLines: string[] = [];

  /** A fake upstream on 127.0.0.1 that records every request it receives. */
  async upstream(): Promise<FakeUpstream> {
    const fake: FakeUpstream = {
      url: '',
      received: [],
      handler: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    };
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        fake.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        fake.handler(req, res, body);
      });
    });
    await listen(server);
    this.servers.push(server);
    fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  /** The proxy on a free port, its pino output captured in `logLines`. */
  async proxy(config: Omit<ProxyConfigInput, 'port' | 'host'>, env: NodeJS.ProcessEnv = {}): Promise<ProxyServer> {
    const destination = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        this.logLines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
        done();
      },
    });
    const resolved = resolveProxyConfig(parseProxyConfig({ ...config, host: '127.0.0.1', port: 0 }), env);
    const proxy = await startProxyServer({ config: resolved, logger: createLogger({ level: 'info', destination }) });
    this.proxies.push(proxy);
    return proxy;
  }

  logs(): Array<Record<string, unknown>> {
    return this.logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.proxies.splice(0).map((proxy) => proxy.close({ forceAfterMs: 0 })));
    for (const server of this.servers) server.closeAllConnections();
    await Promise.all(this.servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    this.logLines.length = 0;
  }
}

export function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

/** One request with the path sent exactly as given (no URL parsing, no dot-segment resolution). */
export function rawRequest(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const base = new URL(baseUrl);
  const headers = { ...options.headers };
  // Node sends a GET's body unframed unless told its length; say it, so the server reads it as a body.
  if (options.body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = request(
      { host: base.hostname, port: base.port, method: options.method ?? 'GET', path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export function errorCode(response: RawResponse): string {
  return (JSON.parse(response.body) as { error: { code: string; message: string } }).error.code;
}

/** The config most tests use: one "github" upstream at `url`. */
export function githubConfig(url: string, overrides: Record<string, unknown> = {}): Omit<ProxyConfigInput, 'port' | 'host'> {
  return {
    maxBodyBytes: 1024,
    adminToken: ADMIN_TOKEN,
    upstreams: {
      github: { url, header: 'authorization', value: 'env:TEST_GITHUB_TOKEN', methods: ['GET', 'POST'], paths: ['/repos/', '/user'] },
    },
    ...overrides,
  };
}

export const ENV = { TEST_GITHUB_TOKEN: CREDENTIAL };
