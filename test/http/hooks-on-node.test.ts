/**
 * The webhook route, served straight on node:http (src/http/hooks-on-node.ts,
 * the only way a delivery comes in; Hono has no route under /hooks): each
 * case's status, the headers that matter, body, stored events and refusal
 * metrics, over a real socket. Then what a router would do with a path
 * (percent escapes, a query, the routed one-segment form, other methods and
 * shapes left to Hono's 404), a chunked body, and a client that goes away.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { counterValue, expectNothingStored, SECRETS, T0, useHttpApps, type TestApp } from './http-harness.js';

interface Served {
  t: TestApp;
  server: HttpServer;
}

interface Sent {
  status: number;
  contentType: string | undefined;
  retryAfter: string | undefined;
  body: string;
}

/** A request as raw header lines (a header may be sent twice), its answer read whole. */
async function send(url: string, path: string, headers: [string, string][], body: string | Buffer, method = 'POST'): Promise<Sent> {
  const target = new URL(path, url);
  // A header named twice goes out as two lines (a value given as an array).
  const lines: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const had = lines[name];
    lines[name] = had === undefined ? value : [had, value].flat();
  }
  const req = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: lines });
  req.end(body);
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode!, contentType: res.headers['content-type'], retryAfter: res.headers['retry-after'], body: Buffer.concat(chunks).toString('utf8') };
}

async function githubHeaders(id: string | null, body: string, signature?: string): Promise<[string, string][]> {
  const headers: [string, string][] = [
    ['content-type', 'application/json'],
    ['content-length', String(Buffer.byteLength(body))],
    ['x-hub-signature-256', signature ?? (await githubSign(SECRETS.github, body))],
  ];
  if (id !== null) headers.push(['x-github-delivery', id]);
  return headers;
}

function slackHeaders(body: string, contentType: string): [string, string][] {
  const timestamp = String(Math.floor(T0 / 1000));
  const signature = 'v0=' + createHmac('sha256', SECRETS.slack).update(`v0:${timestamp}:${body}`).digest('hex');
  return [
    ['content-type', contentType],
    ['content-length', String(Buffer.byteLength(body))],
    ['x-slack-request-timestamp', timestamp],
    ['x-slack-signature', signature],
  ];
}

interface Case {
  name: string;
  path?: string;
  config?: Parameters<ReturnType<typeof useHttpApps>['make']>[0];
  /** Run before the deliveries (e.g. close the store). */
  before?: (t: TestApp) => Promise<void>;
  deliveries: () => Promise<{ headers: [string, string][]; body: string }[]>;
  /** The answer to the last delivery, as the route has always given it. */
  expected: { status: number; code?: string; body?: unknown };
  /** The keys stored in the end, in order. */
  stored?: string[];
}

const body = JSON.stringify({ action: 'opened', issue: { number: 1, title: 'Löwe 🦁' } });
// Node's client writes a header value's characters as UTF-8: the bytes a sender of this id puts on the wire.
const utf8Id = 'lieferung-ä';
const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();

const cases: Case[] = [
  { name: 'a signed delivery: 202 stored', deliveries: async () => [{ headers: await githubHeaders('d-1', body), body }], expected: { status: 202, body: { stored: true } }, stored: ['d-1'] },
  {
    name: 'the same delivery again: 200 duplicate',
    deliveries: async () => [
      { headers: await githubHeaders('d-1', body), body },
      { headers: await githubHeaders('d-1', body), body },
    ],
    expected: { status: 200, body: { stored: false, duplicate: true } },
    stored: ['d-1'],
  },
  { name: 'a forged signature: 401 bad_signature', deliveries: async () => [{ headers: await githubHeaders('d-1', body, 'sha256=' + '0'.repeat(64)), body }], expected: { status: 401, code: 'bad_signature' } },
  {
    name: 'no signature: 401 missing_signature',
    deliveries: async () => [{ headers: (await githubHeaders('d-1', body)).filter(([name]) => name !== 'x-hub-signature-256'), body }],
    expected: { status: 401, code: 'missing_signature' },
  },
  { name: 'no delivery id: 400 missing_key', deliveries: async () => [{ headers: await githubHeaders(null, body), body }], expected: { status: 400, code: 'missing_key' } },
  {
    name: 'the delivery id sent twice: 400 invalid_header',
    deliveries: async () => [{ headers: [...(await githubHeaders('d-1', body)), ['x-github-delivery', 'd-2']], body }],
    expected: { status: 400, code: 'invalid_header' },
  },
  {
    name: 'a UTF-8 delivery id: stored as the text sent',
    deliveries: async () => [{ headers: await githubHeaders(utf8Id, body), body }],
    expected: { status: 202, body: { stored: true } },
    stored: ['lieferung-ä'],
  },
  { name: 'a body that is not JSON: 400 bad_json', deliveries: async () => [{ headers: await githubHeaders('d-1', '{"a":'), body: '{"a":' }], expected: { status: 400, code: 'bad_json' } },
  {
    name: 'JSON nested too deep: 400 too_deep',
    deliveries: async () => {
      const deep = '['.repeat(100) + ']'.repeat(100);
      return [{ headers: await githubHeaders('d-1', deep), body: deep }];
    },
    expected: { status: 400, code: 'too_deep' },
  },
  {
    name: 'a declared length over maxBodyBytes: 413 body_too_large',
    config: { maxBodyBytes: 1024 },
    deliveries: async () => {
      const big = JSON.stringify({ pad: 'x'.repeat(2000) });
      return [{ headers: await githubHeaders('d-1', big), body: big }];
    },
    expected: { status: 413, code: 'body_too_large' },
  },
  { name: 'an unknown source: 404 unknown_source', path: '/hooks/alice/gitlab', deliveries: async () => [{ headers: await githubHeaders('d-1', body), body }], expected: { status: 404, code: 'unknown_source' } },
  {
    name: "GitHub's form content type: 202, stored as the JSON in its payload field",
    deliveries: async () => {
      const sent = form({ payload: body });
      return [{ headers: [...(await githubHeaders('d-1', sent)).filter(([name]) => name !== 'content-type'), ['content-type', 'application/x-www-form-urlencoded']], body: sent }];
    },
    expected: { status: 202, body: { stored: true } },
    stored: ['d-1'],
  },
  {
    name: "a Slack slash command: Slack's empty 200",
    path: '/hooks/alice/slack',
    deliveries: async () => {
      const sent = form({ command: '/refund', text: '42', trigger_id: '123.456.abc' });
      return [{ headers: slackHeaders(sent, 'application/x-www-form-urlencoded'), body: sent }];
    },
    expected: { status: 200, body: '' },
    stored: ['123.456.abc'],
  },
  {
    name: "Slack's url_verification handshake: its challenge, nothing stored",
    path: '/hooks/alice/slack',
    deliveries: async () => {
      const sent = JSON.stringify({ type: 'url_verification', challenge: 'abc123' });
      return [{ headers: slackHeaders(sent, 'application/json'), body: sent }];
    },
    expected: { status: 200, body: { challenge: 'abc123' } },
  },
  {
    name: 'a closed store: 503 store_closed with Retry-After',
    before: (t) => t.store.close(),
    deliveries: async () => [{ headers: await githubHeaders('d-1', body), body }],
    expected: { status: 503, code: 'store_closed' },
  },
];

describe('POST /hooks/<inbox>/<source> on node:http', () => {
  const apps = useHttpApps();
  const servers: HttpServer[] = [];

  async function serve(config: Case['config'] = {}): Promise<Served> {
    const t = await apps.make(config);
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    servers.push(server);
    return { t, server };
  }

  async function closeAll(): Promise<void> {
    await Promise.all(servers.splice(0).map((server) => server.close({ forceAfterMs: 0 })));
  }

  it.each(cases)('$name', async ({ path = '/hooks/alice/github', config, before, deliveries, expected, stored = [] }) => {
    try {
      const { t, server } = await serve(config);
      await before?.(t);
      const sent: Sent[] = [];
      for (const delivery of await deliveries()) sent.push(await send(server.url, path, delivery.headers, delivery.body));
      const last = sent.at(-1)!;
      expect(last.status).toBe(expected.status);
      if (expected.code !== undefined) expect(JSON.parse(last.body)).toMatchObject({ error: { code: expected.code } });
      if (expected.body !== undefined) expect(typeof expected.body === 'string' ? last.body : JSON.parse(last.body)).toEqual(expected.body);
      if (expected.status === 503) expect(last.retryAfter).toBe('1');
      if (typeof expected.body !== 'string') expect(last.contentType).toBe('application/json');

      if (before === undefined) {
        const events = (await t.store.inboxes()).includes('alice') ? await t.store.inbox('alice').events() : [];
        expect(events.map((e) => e.sourceId)).toEqual(stored);
      }
      if (expected.code !== undefined && expected.status < 500) {
        // Counted from the event stream (webhook:refused), under the source's name, or (unknown) for one no config has.
        const source = path.endsWith('gitlab') ? '(unknown)' : path.split('/').at(-1)!;
        expect(await counterValue(t.metrics, 'rejectedSignatures', { source, reason: expected.code })).toBe(1);
        expect(t.logs().filter((line) => line.msg === `webhook refused: ${JSON.parse(last.body).error.message as string}`)).toHaveLength(1);
      }
    } finally {
      await closeAll();
    }
  });

  it('reads a path as a router would: percent escapes decoded, the query ignored; other shapes and methods are Hono\'s 404', async () => {
    try {
      const { t, server } = await serve();
      const deliver = async (path: string, id: string, method = 'POST'): Promise<Sent> => send(server.url, path, await githubHeaders(id, body), body, method);
      expect((await deliver('/hooks/al%69ce/github', 'd-1')).status).toBe(202);
      expect((await deliver('/hooks/alice/github?attempt=2', 'd-2')).status).toBe(202);
      expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['d-1', 'd-2']);
      // An escape that decodes to a slash, or does not decode, is no inbox id.
      expect(JSON.parse((await deliver('/hooks/a%2Fb/github', 'd-3')).body)).toMatchObject({ error: { code: 'invalid_inbox_id' } });
      expect(JSON.parse((await deliver('/hooks/a%zz/github', 'd-4')).body)).toMatchObject({ error: { code: 'invalid_inbox_id' } });
      for (const [path, method] of [
        ['/hooks/alice/github/', 'POST'],
        ['/hooks/alice/github/more', 'POST'],
        ['/hooks//github', 'POST'],
        ['/hooks/alice/github', 'GET'],
        ['/hooks/alice/github', 'PUT'],
      ] as const) {
        const answer = await deliver(path, 'd-5', method);
        expect([path, method, answer.status, JSON.parse(answer.body).error.code]).toEqual([path, method, 404, 'not_found']);
      }
      expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['d-1', 'd-2']);
    } finally {
      await closeAll();
    }
  });

  it('serves the one-segment form for a routed source: the inbox comes from the verified body', async () => {
    try {
      const { t, server } = await serve({ sources: { github: { type: 'github', secret: SECRETS.github, inbox: { from: 'sender.login', prefix: 'gh-' } } } });
      const routed = JSON.stringify({ action: 'opened', sender: { login: 'octocat' } });
      expect((await send(server.url, '/hooks/github', await githubHeaders('d-1', routed), routed)).status).toBe(202);
      expect((await t.store.inbox('gh-octocat').events()).map((e) => e.sourceId)).toEqual(['d-1']);
    } finally {
      await closeAll();
    }
  });

  it('a chunked body (no Content-Length) is read within the limit and stored once', async () => {
    try {
      const { t, server } = await serve();
      const headers = (await githubHeaders('d-1', body)).filter(([name]) => name !== 'content-length');
      const answer = await send(server.url, '/hooks/alice/github', [...headers, ['transfer-encoding', 'chunked']], body);
      expect(answer.status).toBe(202);
      expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['d-1']);
    } finally {
      await closeAll();
    }
  });

  it('a client that goes away mid-body stores nothing, and the next delivery is served', async () => {
    try {
      const { t, server } = await serve();
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.write(`POST /hooks/alice/github HTTP/1.1\r\nHost: x\r\nX-GitHub-Delivery: gone-1\r\nContent-Length: 1000\r\n\r\n{"action":`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expectNothingStored(t.store);
      expect((await send(server.url, '/hooks/alice/github', await githubHeaders('d-1', body), body)).status).toBe(202);
    } finally {
      await closeAll();
    }
  });

  it('a refusal before the body is read leaves the keep-alive connection usable for the next delivery', async () => {
    try {
      const { t, server } = await serve();
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const post = async (path: string, id: string): Promise<[number, number]> => {
        const headers = Object.fromEntries(await githubHeaders(id, body));
        const req = request(new URL(path, server.url), { method: 'POST', headers, agent });
        req.end(body);
        const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
        const port = res.socket.localPort!;
        res.resume();
        await once(res, 'end');
        return [res.statusCode!, port];
      };
      const [refused, first] = await post('/hooks/alice/gitlab', 'd-1');
      const [stored, second] = await post('/hooks/alice/github', 'd-2');
      expect([refused, stored]).toEqual([404, 202]);
      expect(second, 'the same connection carried both').toBe(first);
      agent.destroy();
      expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['d-2']);
    } finally {
      await closeAll();
    }
  });
});
