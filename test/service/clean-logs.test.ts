/**
 * Logs an attacker can neither fill nor forge (issue 49, findings 3 and 4),
 * against a real `vigil serve` at the default log level:
 *   - refused webhooks, sent by anyone with long path segments, cost a
 *     bounded line each kind per minute, not the sender's bytes twice
 *     (4.5 MB sent gave 9 MB of log);
 *   - a reply that echoes what a user sent cannot write a log line of its
 *     own or a terminal escape into stdout, the JSON log stream.
 */
import { createHmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, ServiceHarness, type ServeProcess } from '../fixtures/service-process.js';

const GITHUB_SECRET = 'clean-logs-github-secret-0123456789abcdef';

const harness = new ServiceHarness();
let serve: ServeProcess;
let url: string;

beforeAll(async () => {
  const dir = harness.tempDir('vigil-clean-logs-');
  const config = harness.writeConfig(dir, {
    store: 'sqlite:./data',
    port: 0,
    agent: join(REPO_ROOT, 'test/fixtures/webhook-reply-agent.ts'),
    sources: { github: { type: 'github', secret: GITHUB_SECRET } },
    engine: { outboxGapMs: 0 },
    workers: { pollIntervalMs: 50 },
  });
  serve = harness.serve(config);
  url = await serve.url();
});

afterAll(() => harness.cleanup());

const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: keepAlive, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('refused webhooks', () => {
  it('a few MB of refusals with long path segments leave a few KB of log, every line bounded', async () => {
    const before = Buffer.byteLength(serve.stdout);
    const long = (i: number) => `${'x'.repeat(7_990)}${String(i).padStart(6, '0')}`;
    // Three ways to be refused with the sender's own segment: an unknown source (both path forms), an invalid inbox id.
    const paths = (i: number) => [`/hooks/alice/${long(i)}`, `/hooks/${long(i)}`, `/hooks/${long(i)}/github`];
    let sent = 0;
    const statuses = new Set<number>();
    for (let i = 0; sent < 4.5 * 1024 * 1024; i++) {
      const batch = paths(i);
      for (const status of await Promise.all(batch.map((path) => post(path, '{}')))) statuses.add(status);
      sent += batch.reduce((sum, path) => sum + path.length, 0);
    }
    expect([...statuses].sort()).toEqual([400, 404]);
    // The service is still answering, and has written what it will for these.
    expect(await post('/hooks/alice/github', '{}')).toBe(401);
    await serve.log('the last refusal', (line) => line.msg.startsWith('webhook refused: ') && line.reason === 'missing_signature');

    const logged = serve.stdout.slice(before);
    const lines = logged.split('\n').filter((line) => line !== '');
    expect(Buffer.byteLength(logged)).toBeLessThan(16 * 1024);
    for (const line of lines) expect(line.length).toBeLessThan(1_024);
    // Sampled, not silent: each kind of refusal is there once, at info, its source and message cut to a bound.
    const refused = serve.logs.filter((line) => line.msg.startsWith('webhook refused: '));
    expect(refused.map((line) => [line.level, line.known, line.reason]).sort()).toEqual([
      [30, false, 'unknown_source'],
      [30, true, 'invalid_inbox_id'],
      [30, true, 'missing_signature'],
    ]);
    expect(refused.find((line) => line.reason === 'unknown_source')!.source).toMatch(/^x{120}…\(\d+ more characters\)$/);
  }, 120_000);
});

describe('the console channel', () => {
  it('a reply echoing what a user sent is one JSON record: no forged log line, no terminal escape', async () => {
    const forged = '\n{"level":50,"time":1,"pid":1,"hostname":"h","msg":"FORGED by a user"}\n\u001b[2J\u001b[31m';
    const body = JSON.stringify({ action: 'opened', sender: { login: forged } });
    const signature = `sha256=${createHmac('sha256', GITHUB_SECRET).update(body).digest('hex')}`;
    expect(await post('/hooks/mallory/github', body, { 'x-github-delivery': 'forge-1', 'x-hub-signature-256': signature })).toBe(202);
    await serve.log('the reply sent', (line) => line.msg === 'outbox sent' && line.inboxId === 'mallory');

    // Every line of stdout is JSON; the reply is a body field of one of them; no line says FORGED, none carries ESC.
    const lines = serve.stdout.split('\n').filter((line) => line !== '');
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(serve.logs.filter((line) => line.msg.includes('FORGED'))).toEqual([]);
    expect(serve.logs.filter((line) => String(line.body).includes('FORGED'))).toEqual([
      expect.objectContaining({ level: 30, channel: 'console', inboxId: 'mallory', body: `opened from ${forged} (forge-1), for mallory` }),
    ]);
    expect(serve.stdout).not.toContain('\u001b');
  });
});
