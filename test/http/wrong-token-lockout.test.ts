/**
 * Wrong tokens per client address, over a real socket: the API's bearer
 * token and the dashboard's sign-in share one count per address, only wrong
 * tokens count, and the right token is never refused. Clients connect from
 * different loopback addresses (127.0.0.2, 127.0.0.3) to the server on
 * 127.0.0.1, so the server sees them as different peers; IPv6 /64s are
 * checked through app.request with the peer's address in the Node env.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { lockoutKey, MAX_FAILURES, WINDOW_MS } from '../../src/http/wrong-token-lockout.js';
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
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
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
  const lockoutLines = (t: TestApp) => t.logs().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('too many wrong tokens from this address'));

  it(`after ${MAX_FAILURES} wrong API tokens an address's wrong tokens get 429 with Retry-After until the window ends; the right token still works; logged once`, async () => {
    const { t, server } = await serve();
    for (let i = 0; i < MAX_FAILURES; i++) expect((await message(server, '127.0.0.2', `guess-${i}`, `g-${i}`)).status).toBe(401);

    const refused = await message(server, '127.0.0.2', 'guess-again', 'g-again');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
    expect(JSON.parse(refused.body)).toEqual({ error: { code: 'too_many_attempts', message: `too many wrong tokens from this address; try again in ${WINDOW_MS / 1000} s` } });
    // The operator on the same address is not locked out.
    expect((await message(server, '127.0.0.2', SECRETS.token, 'right-while-locked')).status).toBe(202);
    expect((await message(server, '127.0.0.3', SECRETS.token, 'other-address')).status).toBe(202);
    for (let i = 0; i < 5; i++) expect((await message(server, '127.0.0.2', `more-${i}`, `m-${i}`)).status).toBe(429);
    expect(lockoutLines(t)).toEqual([expect.objectContaining({ ip: '127.0.0.2', door: 'api', level: 40 })]);

    t.clock.advance(WINDOW_MS - 1_000);
    const later = await message(server, '127.0.0.2', 'still-wrong', 'sw');
    expect(later.status).toBe(429);
    expect(later.headers['retry-after']).toBe('1');
    t.clock.advance(1_000);
    expect((await message(server, '127.0.0.2', 'wrong-after-the-window', 'wa')).status).toBe(401);
    expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['right-while-locked', 'other-address']);
  });

  it('requests without a token, malformed headers and unknown paths are not guesses: they never lock an address out', async () => {
    const { t, server } = await serve();
    for (let i = 0; i < 3 * MAX_FAILURES; i++) {
      expect((await send(server, '127.0.0.2', '/inboxes/alice/messages', { method: 'POST', body: '{"text":"x"}', headers: { 'idempotency-key': `n-${i}` } })).status).toBe(401);
      expect((await send(server, '127.0.0.2', '/inboxes/alice/messages', { method: 'POST', body: '{"text":"x"}', headers: { authorization: 'Basic abc' } })).status).toBe(401);
      expect((await send(server, '127.0.0.2', `/no/such/path-${i}`, { headers: { authorization: `Bearer wrong-${i}` } })).status).toBe(404);
      expect((await send(server, '127.0.0.2', `/inboxes/alice/nothing-${i}`, { method: 'POST', headers: { authorization: `Bearer wrong-${i}` } })).status).toBe(404);
    }
    expect((await message(server, '127.0.0.2', 'one-real-guess', 'g')).status).toBe(401);
    expect(lockoutLines(t)).toEqual([]);
  });

  it('the right token clears the count: a user who mistypes now and then never meets the lockout', async () => {
    const { server } = await serve();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await message(server, '127.0.0.2', 'typo', `t-${round}-${i}`)).status).toBe(401);
      expect((await message(server, '127.0.0.2', SECRETS.token, `ok-${round}`)).status).toBe(202);
    }
    expect((await message(server, '127.0.0.2', 'typo', 'last')).status).toBe(401);
  });

  it('the dashboard sign-in counts against the same address: wrong tokens get 429 and no cookie, the right one still signs in', async () => {
    const { t, server } = await serve();
    for (let i = 0; i < MAX_FAILURES; i++) {
      const wrong = await signIn(server, '127.0.0.2', `guess-${i}`);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toContain('That token is not right.');
    }
    const locked = await signIn(server, '127.0.0.2', 'guess-again');
    expect(locked.status).toBe(429);
    expect(locked.headers['retry-after']).toBe(String(WINDOW_MS / 1000));
    expect(locked.headers['set-cookie']).toBeUndefined();
    expect(locked.body).toContain('Too many wrong tokens from here.');
    // One count for both doors.
    expect((await message(server, '127.0.0.2', 'api-guess', 'api-too')).status).toBe(429);
    expect(lockoutLines(t)).toEqual([expect.objectContaining({ ip: '127.0.0.2', door: 'dashboard' })]);

    const operator = await signIn(server, '127.0.0.2', SECRETS.token);
    expect(operator.status).toBe(303);
    expect(String(operator.headers['set-cookie'])).toContain('vigil_session=');
    // An empty token field is not a guess.
    const { server: fresh } = await serve();
    for (let i = 0; i < 2 * MAX_FAILURES; i++) expect((await signIn(fresh, '127.0.0.2', '')).status).toBe(401);
    expect((await signIn(fresh, '127.0.0.2', 'a-real-guess')).status).toBe(401);
  });

  it('IPv6 addresses count per /64: a client cannot get fresh guesses by changing the low 64 bits', async () => {
    const { t } = await serve();
    const from = (address: string, token: string, key: string) =>
      t.app.hono.request(
        '/inboxes/alice/messages',
        { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': key }, body: JSON.stringify({ text: key }) },
        { incoming: { socket: { remoteAddress: address } } },
      );
    for (let i = 0; i < MAX_FAILURES; i++) expect((await from(`2001:db8:0:1::${(i + 1).toString(16)}`, `guess-${i}`, `g-${i}`)).status).toBe(401);
    expect((await from('2001:db8:0:1:ffff:ffff:ffff:ffff', 'guess', 'g-x')).status).toBe(429);
    expect((await from('2001:db8:0:2::1', 'guess', 'g-y')).status).toBe(401);
    expect((await from('2001:db8:0:1::99', SECRETS.token, 'right')).status).toBe(202);
    expect(lockoutLines(t)).toEqual([expect.objectContaining({ ip: '2001:db8:0:1::a', counted: '2001:db8:0:1::/64' })]);
  });
});

describe('lockoutKey', () => {
  it('is the address for IPv4 (also mapped into IPv6) and the /64 for IPv6', () => {
    expect(lockoutKey('203.0.113.7')).toBe('203.0.113.7');
    expect(lockoutKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(lockoutKey('2001:0db8:0000:0001:0000:0000:0000:0001')).toBe('2001:db8:0:1::/64');
    expect(lockoutKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(lockoutKey('::1')).toBe('0:0:0:0::/64');
    expect(lockoutKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(lockoutKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
    expect(lockoutKey('unknown')).toBe('unknown');
  });
});
