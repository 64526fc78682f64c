/**
 * Wrong tokens per client address, over a real socket: the API's bearer
 * token and the dashboard's sign-in share one count per address. Clients
 * connect from different loopback addresses (127.0.0.2, 127.0.0.3) to the
 * server on 127.0.0.1, so the server sees them as different peers.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { MAX_FAILURES, WINDOW_MS } from '../../src/http/sign-in-throttle.js';
import { SECRETS, useHttpApps, type TestApp } from './http-harness.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(server: HttpServer, from: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: init.method ?? 'GET', headers: init.headers, localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A chat message through the API with this token: 202 once stored. */
const message = (server: HttpServer, from: string, token: string, key: string): Promise<Answer> =>
  send(server, from, '/inboxes/alice/messages', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ text: key }),
  });

const signIn = (server: HttpServer, from: string, token: string): Promise<Answer> =>
  send(server, from, '/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, next: '/' }).toString(),
  });

describe('wrong tokens, counted per client address', () => {
  const apps = useHttpApps();
  const servers: HttpServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const serve = async (): Promise<{ t: TestApp; server: HttpServer }> => {
    const t = await apps.make();
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    servers.push(server);
    return { t, server };
  };

  it(`after ${MAX_FAILURES} wrong API tokens an address gets 429 with Retry-After, the right token too, until the window ends; other addresses go on`, async () => {
    const { t, server } = await serve();
    for (let i = 0; i < MAX_FAILURES; i++) expect((await message(server, '127.0.0.2', `guess-${i}`, `g-${i}`)).status).toBe(401);

    const refused = await message(server, '127.0.0.2', SECRETS.token, 'right-but-locked');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
    expect(JSON.parse(refused.body)).toEqual({ error: { code: 'too_many_attempts', message: `too many wrong tokens from this address; try again in ${WINDOW_MS / 1000} s` } });
    expect(await t.store.inbox('alice').events()).toEqual([]); // nothing stored while refused

    expect((await message(server, '127.0.0.3', SECRETS.token, 'other-address')).status).toBe(202);
    expect(t.logs().filter((l) => l.msg === 'API: too many wrong tokens from this address; refused for a while')).toEqual([
      expect.objectContaining({ ip: '127.0.0.2', level: 40 }),
    ]);

    t.clock.advance(WINDOW_MS - 1_000);
    const later = await message(server, '127.0.0.2', SECRETS.token, 'still-locked');
    expect(later.status).toBe(429);
    expect(later.headers['retry-after']).toBe('1');
    t.clock.advance(1_000);
    expect((await message(server, '127.0.0.2', SECRETS.token, 'after-the-window')).status).toBe(202);
    expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['other-address', 'after-the-window']);
  });

  it('the right token clears the count: a user who mistypes now and then is never locked out', async () => {
    const { server } = await serve();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await message(server, '127.0.0.2', 'typo', `t-${round}-${i}`)).status).toBe(401);
      expect((await message(server, '127.0.0.2', SECRETS.token, `ok-${round}`)).status).toBe(202);
    }
  });

  it('the dashboard sign-in counts against the same address: a locked address cannot sign in with the right token, and gets no cookie', async () => {
    const { t, server } = await serve();
    for (let i = 0; i < MAX_FAILURES; i++) {
      const wrong = await signIn(server, '127.0.0.2', `guess-${i}`);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toContain('That token is not right.');
    }
    const locked = await signIn(server, '127.0.0.2', SECRETS.token);
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
    expect(locked.headers['set-cookie']).toBeUndefined();
    expect(locked.body).toContain('Too many wrong tokens from here.');
    // One count for both doors.
    expect((await message(server, '127.0.0.2', SECRETS.token, 'api-too')).status).toBe(429);
    expect(t.logs().filter((l) => l.msg === 'dashboard sign-in refused: wrong token').at(-1)).toMatchObject({ ip: '127.0.0.2', locked: true });

    const elsewhere = await signIn(server, '127.0.0.3', SECRETS.token);
    expect(elsewhere.status).toBe(303);
    expect(String(elsewhere.headers['set-cookie'])).toContain('vigil_session=');
  });
});
