/**
 * The hostile probe's findings (issue 18), each against a real `vigil serve`
 * child on 127.0.0.1: secrets too short to be safe stop it at startup;
 * approval links are not keyed with the token; a webhook secret per inbox
 * writes into that inbox alone; the lockout counts wrong tokens only and
 * never locks the right one out; deep JSON, odd header values and a bad
 * `next` are 4xx or handled, never 5xx; sign-out holds on a second instance;
 * notices say nothing a link wrote; an unreadable inbox is one row; a client
 * that drops its body is a debug line. (Full disk and /healthz:
 * test/faults/sqlite-disk-full.test.ts. Routing: routing.test.ts. The proxy:
 * test/proxy/proxy-cli.test.ts.)
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalUrl } from '../../src/http/approval-links.js';
import { openStore, type Store } from '../../src/index.js';
import { REPO_ROOT, ServiceHarness, type ServeProcess } from '../fixtures/service-process.js';

const TOKEN = 'hardening-token-0123456789abcdef0123456';
const GITHUB_SECRET = 'hardening-github-secret-0123456789abcd';
const MASTER = 'hardening-master-secret-0123456789abcde';
const ENV = { HARDENING_MASTER: MASTER };

const harness = new ServiceHarness();
let dir: string;
let configFile: string;
let serve: ServeProcess;
let url: string;
let store: Store;

function config(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    store: 'sqlite:./data',
    port: 0,
    token: TOKEN,
    agent: join(REPO_ROOT, 'test/fixtures/quiet-agent.ts'),
    sources: { github: { type: 'github', secret: GITHUB_SECRET }, mine: { type: 'github', secret: { derive: 'env:HARDENING_MASTER' } } },
    log: { level: 'debug' },
    ...extra,
  };
}

beforeAll(async () => {
  dir = harness.tempDir('vigil-hardening-');
  configFile = harness.writeConfig(dir, config());
  serve = harness.serve(configFile, ENV);
  url = await serve.url();
  store = await openStore(`sqlite:${join(dir, 'data')}`);
});

afterAll(async () => {
  await store?.close();
  await harness.cleanup();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over its own socket, from `from` (another loopback address is another client), headers as raw bytes. */
function send(path: string, init: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer; from?: string; base?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${init.base ?? url}${path}`, { method: init.method ?? 'GET', headers: init.headers, localAddress: init.from ?? '127.0.0.1', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

function githubHeaders(body: string | Buffer, secret: string, id: string | string[]): Record<string, string | string[]> {
  return { 'content-type': 'application/json', 'x-github-delivery': id, 'x-hub-signature-256': 'sha256=' + createHmac('sha256', secret).update(body).digest('hex') };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

async function signIn(base = url): Promise<string> {
  const response = await send('/login', { method: 'POST', headers: FORM, body: new URLSearchParams({ token: TOKEN, next: '/' }).toString(), base });
  expect(response.status).toBe(303);
  return String(response.headers['set-cookie']).split(';')[0] as string;
}

function csrfOf(body: string): string {
  return /name="csrf" value="([^"]+)"/.exec(body)![1] as string;
}

describe('startup', () => {
  it.each([
    ['the token', { token: 'short-token' }, 'token'],
    ['the linkSecret', { linkSecret: 'short-link-secret' }, 'linkSecret'],
    ['a webhook secret', { sources: { github: { type: 'github', secret: 'short-hook-secret' } } }, 'sources.github.secret'],
    ['a master secret', { sources: { mine: { type: 'github', secret: { derive: 'env:SHORT' } } } }, 'sources.mine.secret.derive'],
  ])('%s shorter than 32 characters stops vigil serve with exit 2, saying how to make one, never quoting it', async (_what, extra, field) => {
    const file = harness.writeConfig(harness.tempDir('vigil-hardening-short-'), config(extra));
    const result = await harness.cli(['serve', '--config', file], { env: { SHORT: 'short-master' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${field}: must be at least 32 characters, so that it cannot be guessed; make one with: openssl rand -hex 32 (value not shown)`);
    for (const value of ['short-token', 'short-link-secret', 'short-hook-secret', 'short-master']) expect(result.stderr).not.toContain(value);
  });
});

describe('approval links', () => {
  it('are signed with a key derived for links, not the token: a link keyed with the token is refused', async () => {
    await store.inbox('links').requestApproval({ id: 'refund-1', expiresInMs: 3_600_000, action: 'Refund order 1?' });
    const link = { inboxId: 'links', approvalId: 'refund-1', expiresAt: Date.now() + 3_600_000 };
    const good = new URL(approvalUrl(url, TOKEN, link));
    expect((await send(good.pathname + good.search)).status).toBe(200);
    const keyedWithToken = createHmac('sha256', TOKEN).update(`links\u0000refund-1\u0000${link.expiresAt}`).digest('base64url');
    good.searchParams.set('sig', keyedWithToken);
    expect((await send(good.pathname + good.search)).status).toBe(403);
  });
});

describe('webhook secrets per inbox', () => {
  it("the secret `vigil secret` prints for alice is accepted at alice's inbox and refused at bob's", async () => {
    const printed = await harness.cli(['secret', 'alice', 'mine', '--config', configFile], { env: ENV });
    expect(printed.code).toBe(0);
    const secret = printed.stdout.trim();
    const body = JSON.stringify({ action: 'opened' });
    expect((await send('/hooks/alice/mine', { method: 'POST', headers: githubHeaders(body, secret, 'p-1'), body })).status).toBe(202);
    expect((await send('/hooks/bob/mine', { method: 'POST', headers: githubHeaders(body, secret, 'p-1'), body })).status).toBe(401);
    expect((await store.inbox('alice').events()).map((e) => [e.source, e.sourceId])).toEqual([['mine', 'p-1']]);
    expect((await store.inbox('bob').events())).toEqual([]);
  });
});

describe('the lockout', () => {
  const message = (from: string, token: string | null, key: string) =>
    send('/inboxes/locked/messages', {
      method: 'POST',
      from,
      headers: { 'content-type': 'application/json', 'idempotency-key': key, ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify({ text: key }),
    });

  it('counts wrong tokens only, never locks out the right one, and is logged once', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await message('127.0.0.2', null, `none-${i}`)).status).toBe(401);
      expect((await send(`/no/such/path-${i}`, { from: '127.0.0.2', headers: { authorization: `Bearer wrong-${i}` } })).status).toBe(404);
    }
    expect((await message('127.0.0.2', 'wrong', 'w-0')).status).toBe(401); // not locked by any of that
    for (let i = 1; i < 10; i++) expect((await message('127.0.0.2', 'wrong', `w-${i}`)).status).toBe(401);
    const locked = await message('127.0.0.2', 'wrong', 'w-10');
    expect([locked.status, locked.headers['retry-after']]).toEqual([429, '60']);
    expect((await message('127.0.0.2', TOKEN, 'right')).status).toBe(202);
    expect((await message('127.0.0.2', 'wrong', 'w-11')).status).toBe(429);
    await serve.log('the lockout line', (l) => typeof l.msg === 'string' && l.msg.startsWith('too many wrong tokens from this address'));
    expect(serve.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('too many wrong tokens from this address'))).toEqual([expect.objectContaining({ ip: '127.0.0.2', level: 40 })]);
    expect((await store.inbox('locked').events()).map((e) => e.sourceId)).toEqual(['right']);
  });
});

describe('no 5xx from any input', () => {
  it('a signed body nested thousands deep is 400 too_deep, nothing stored', async () => {
    const body = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const response = await send('/hooks/deep/github', { method: 'POST', headers: githubHeaders(body, GITHUB_SECRET, 'deep-1'), body });
    expect([response.status, JSON.parse(response.body).error.code]).toEqual([400, 'too_deep']);
    expect(await store.inbox('deep').events()).toEqual([]);
  });

  it('a UTF-8 delivery id is stored as sent; X-GitHub-Delivery sent twice is 400, not the key "a, b"', async () => {
    const body = JSON.stringify({ action: 'opened' });
    // Raw bytes on the wire: Node's client would refuse a non-latin1 header string. Written, not
    // ended: a Node server drops a request whose client half-closes before the answer is ready
    // (httpAllowHalfOpen is off), and the answer waits for the commit; Connection: close ends it.
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    await once(socket, 'connect');
    const signature = 'sha256=' + createHmac('sha256', GITHUB_SECRET).update(body).digest('hex');
    socket.write(Buffer.concat([
      Buffer.from(`POST /hooks/utf8/github HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nX-Hub-Signature-256: ${signature}\r\nX-GitHub-Delivery: `),
      Buffer.from('lieferung-ä-😀', 'utf8'),
      Buffer.from(`\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
    ]));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 202 /);
    expect((await store.inbox('utf8').events()).map((e) => e.sourceId)).toEqual(['lieferung-ä-😀']);

    const twice = await send('/hooks/twice/github', { method: 'POST', headers: githubHeaders(body, GITHUB_SECRET, ['a', 'b']), body });
    expect([twice.status, JSON.parse(twice.body).error.code]).toEqual([400, 'invalid_header']);
    expect(await store.inbox('twice').events()).toEqual([]);
  });

  it("the sign-in's next: a tab cannot send you off the server, and a newline is not a 500", async () => {
    for (const [next, location] of [
      ['/\t/evil.example/path', '/'],
      ['/\\\t\\evil.example', '/'],
      ['/inbox/x\r\nSet-Cookie: y=1', '/inbox/xSet-Cookie:%20y=1'],
    ]) {
      const response = await send('/login', { method: 'POST', headers: FORM, body: new URLSearchParams({ token: TOKEN, next: next! }).toString() });
      expect([response.status, response.headers.location]).toEqual([303, location]);
    }
  });

  it('a client that drops its body halfway is a debug line, no error', async () => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    socket.write('POST /hooks/dropped/github HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789');
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    const line = await serve.log('the debug line', (l) => l.msg === 'the client went away before sending the whole body' && l.path === '/hooks/dropped/github');
    expect(line.level).toBe(20);
    expect(serve.logs.filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe('the dashboard', () => {
  it('sign-out ends the session on another instance on the same store too', async () => {
    const second = harness.serve(configFile, ENV);
    const secondUrl = await second.url();
    const cookie = await signIn();
    expect((await send('/', { headers: { cookie }, base: secondUrl })).status).toBe(200);
    const page = await send('/', { headers: { cookie } });
    const out = await send('/logout', { method: 'POST', headers: { ...FORM, cookie }, body: `csrf=${csrfOf(page.body)}` });
    expect(out.status).toBe(303);
    const elsewhere = await send('/', { headers: { cookie }, base: secondUrl });
    expect([elsewhere.status, elsewhere.headers.location]).toEqual([303, '/login?next=%2F']);
    expect((await send('/', { headers: { cookie } })).status).toBe(303);
    second.signal('SIGTERM');
    await second.exited;
  });

  it('a notice shows no text from the link', async () => {
    await store.inbox('noticed').ingest({ source: 'test', sourceId: 'x' });
    const cookie = await signIn();
    const page = await send(`/inbox/noticed?notice=redriven&ref=${encodeURIComponent('Call +1 555 0100 to unlock your account')}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('Call +1');
    expect(page.body).toContain('Redriven: the event is pending again');
  });

  it('an inbox file that cannot be read is one red row; the rest of the overview renders', async () => {
    // Made by a handle of this test's, closed so that all of it is in the file; no work is due, so the
    // service never opens it before it goes bad.
    const maker = await openStore(`sqlite:${join(dir, 'data')}`);
    await maker.inbox('zz-broken').addTimer({ id: 'later', due: Date.now() + 86_400_000 });
    await maker.close();
    writeFileSync(join(dir, 'data', 'zz-broken.db'), 'this is not a SQLite database, just text long enough to be read as a header. '.repeat(20));
    const cookie = await signIn();
    const overview = await send('/', { headers: { cookie } });
    expect(overview.status).toBe(200);
    expect(overview.body).toMatch(/<tr class="unreadable">\s*<th scope="row"><a href="\/inbox\/zz-broken">zz-broken<\/a><\/th>[\s\S]*?unreadable: a file in the data directory is not a SQLite database/);
    expect(overview.body).toContain('href="/inbox/noticed"');
  });
});
