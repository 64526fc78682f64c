/**
 * POST /hooks/<inbox>/<source> served straight on node:http
 * (src/http/hooks-on-node.ts) answers exactly as the route does through
 * Hono: each delivery is sent to two servers on fresh stores, once on the
 * plain path (the node route) and once with a query string (which only Hono
 * takes; it routes by path alone), and both must give the same status,
 * headers that matter, body, stored events and refusal metrics.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { hooksOnNode } from '../../src/http/hooks-on-node.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { counterValue, expectNothingStored, SECRETS, T0, useHttpApps, type TestApp } from './http-harness.js';

interface Served {
  t: TestApp;
  server: HttpServer;
  /** Requests Hono answered: app.fetch is counted before the server takes it. */
  viaHono(): number;
}

interface Sent {
  status: number;
  contentType: string | undefined;
  retryAfter: string | undefined;
  body: string;
}

/** A request as raw header lines (a header may be sent twice), its answer read whole. */
async function send(url: string, path: string, headers: [string, string][], body: string | Buffer): Promise<Sent> {
  const target = new URL(path, url);
  // A header named twice goes out as two lines (a value given as an array).
  const lines: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const had = lines[name];
    lines[name] = had === undefined ? value : [had, value].flat();
  }
  const req = request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: 'POST', headers: lines });
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
    let calls = 0;
    const fetch = t.app.fetch;
    t.app.fetch = (...args) => {
      calls += 1;
      return fetch(...args);
    };
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    servers.push(server);
    return { t, server, viaHono: () => calls };
  }

  async function closeAll(): Promise<void> {
    await Promise.all(servers.splice(0).map((server) => server.close({ forceAfterMs: 0 })));
  }

  it.each(cases)('$name: the same answer, events and refusals as through Hono', async ({ path = '/hooks/alice/github', config, before, deliveries, expected, stored = [] }) => {
    try {
      const onNode = await serve(config);
      const onHono = await serve(config);
      const answers: Sent[][] = [];
      for (const [served, suffix] of [
        [onNode, ''],
        [onHono, '?via=hono'],
      ] as const) {
        await before?.(served.t);
        const sent: Sent[] = [];
        for (const delivery of await deliveries()) sent.push(await send(served.server.url, path + suffix, delivery.headers, delivery.body));
        answers.push(sent);
      }
      expect(onNode.viaHono(), 'the plain path is served on node:http').toBe(0);
      expect(onHono.viaHono(), 'a path with a query goes through Hono').toBeGreaterThan(0);
      expect(answers[0]).toEqual(answers[1]);

      const last = answers[0]!.at(-1)!;
      expect(last.status).toBe(expected.status);
      if (expected.code !== undefined) expect(JSON.parse(last.body)).toMatchObject({ error: { code: expected.code } });
      if (expected.body !== undefined) expect(typeof expected.body === 'string' ? last.body : JSON.parse(last.body)).toEqual(expected.body);
      if (expected.status === 503) expect(last.retryAfter).toBe('1');

      if (before === undefined) {
        const events = await Promise.all([onNode, onHono].map(async ({ t }) => ((await t.store.inboxes()).includes('alice') ? await t.store.inbox('alice').events() : [])));
        expect(events[0]!.map((e) => [e.source, e.sourceId, e.payload])).toEqual(events[1]!.map((e) => [e.source, e.sourceId, e.payload]));
        expect(events[0]!.map((e) => e.sourceId)).toEqual(stored);
      }
      if (expected.code !== undefined && expected.status < 500) {
        for (const { t } of [onNode, onHono]) {
          const source = path.endsWith('gitlab') ? '(unknown)' : path.split('/').at(-1)!;
          expect(await counterValue(t.metrics, 'rejectedSignatures', { source, reason: expected.code })).toBe(1);
        }
      }
    } finally {
      await closeAll();
    }
  });

  it('a chunked body (no Content-Length) goes through Hono, and is stored once', async () => {
    try {
      const { t, server, viaHono } = await serve();
      const headers = (await githubHeaders('d-1', body)).filter(([name]) => name !== 'content-length');
      const answer = await send(server.url, '/hooks/alice/github', [...headers, ['transfer-encoding', 'chunked']], body);
      expect(answer.status).toBe(202);
      expect(viaHono()).toBe(1);
      expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['d-1']);
    } finally {
      await closeAll();
    }
  });

  it('a client that goes away mid-body stores nothing, and the next delivery is served', async () => {
    try {
      const { t, server, viaHono } = await serve();
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.write(`POST /hooks/alice/github HTTP/1.1\r\nHost: x\r\nX-GitHub-Delivery: gone-1\r\nContent-Length: 1000\r\n\r\n{"action":`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expectNothingStored(t.store);
      expect((await send(server.url, '/hooks/alice/github', await githubHeaders('d-1', body), body)).status).toBe(202);
      expect(viaHono()).toBe(0);
    } finally {
      await closeAll();
    }
  });

  it('an app given more routes after createApp is served by Hono alone: nothing of it is bypassed', async () => {
    try {
      const { t, viaHono } = await serve();
      expect(hooksOnNode(t.app)).toBeDefined();
      t.app.get('/extra', (c) => c.text('extra'));
      expect(hooksOnNode(t.app)).toBeUndefined();
      const again = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
      servers.push(again);
      expect((await send(again.url, '/hooks/alice/github', await githubHeaders('d-1', body), body)).status).toBe(202);
      expect(viaHono()).toBe(1);
    } finally {
      await closeAll();
    }
  });
});
