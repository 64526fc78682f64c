/** The Node adapter, once over a real socket: 127.0.0.1, port 0, real fetch. */
import { once } from 'node:events';
import { connect } from 'node:net';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/observability/logger.js';
import { expectNothingStored, SECRETS, useHttpApps } from './http-harness.js';
import { jsonLog } from '../fixtures/json-log.js';

describe('startHttpServer', () => {
  const apps = useHttpApps();

  it('serves the app on 127.0.0.1: webhook ack, duplicate, refusal, body limit, health and metrics', async () => {
    const t = await apps.make({ maxBodyBytes: 4096 });
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      const body = JSON.stringify({ action: 'opened', issue: { number: 1 } });
      const headers = { 'content-type': 'application/json', 'x-github-delivery': 'd-1', 'x-hub-signature-256': await githubSign(SECRETS.github, body) };
      const hook = `${server.url}/hooks/alice/github`;

      const first = await fetch(hook, { method: 'POST', body, headers });
      expect(first.status).toBe(202);
      expect(await first.json()).toEqual({ stored: true });
      const again = await fetch(hook, { method: 'POST', body, headers });
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ stored: false, duplicate: true });

      const forged = await fetch(hook, { method: 'POST', body: body.replace('1', '2'), headers: { ...headers, 'x-github-delivery': 'd-2' } });
      expect(forged.status).toBe(401);
      expect(await forged.json()).toMatchObject({ error: { code: 'bad_signature' } });

      const big = await fetch(hook, { method: 'POST', body: 'x'.repeat(8192), headers: { ...headers, 'x-github-delivery': 'd-3' } });
      expect(big.status).toBe(413);
      await big.body?.cancel();

      expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['d-1']);

      const health = await fetch(`${server.url}/healthz`);
      expect(await health.json()).toEqual({ ok: true, status: 'ok' });
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toContain('vigil_events_ingested_total{source="github"} 1');
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('a chunked body with no Content-Length is cut off at the limit over a real socket: 413, nothing stored', async () => {
    const t = await apps.make({ maxBodyBytes: 4096 });
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      const body = JSON.stringify({ pad: 'x'.repeat(10_000) });
      const headers = { 'content-type': 'application/json', 'x-github-delivery': 'big-1', 'x-hub-signature-256': await githubSign(SECRETS.github, body) };
      // A stream has no length up front: fetch sends it chunked, so only counting while reading can refuse it.
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < body.length; i += 1000) controller.enqueue(new TextEncoder().encode(body.slice(i, i + 1000)));
          controller.close();
        },
      });
      const response = await fetch(`${server.url}/hooks/alice/github`, { method: 'POST', body: stream, headers, duplex: 'half' } as RequestInit);
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error: { code: 'body_too_large' } });
      // The same body within the limit is read whole from the socket and stored.
      const small = JSON.stringify({ ok: true });
      const ok = await fetch(`${server.url}/hooks/alice/github`, {
        method: 'POST',
        body: small,
        headers: { ...headers, 'x-github-delivery': 'small-1', 'x-hub-signature-256': await githubSign(SECRETS.github, small) },
      });
      expect(ok.status).toBe(202);
      expect((await t.store.inbox('alice').events()).map((e) => e.sourceId)).toEqual(['small-1']);
    } finally {
      await server.close();
    }
  });

  it('an endless chunked body over a real socket gets its 413, and the connection is closed soon after: the rest is not read on', async () => {
    const t = await apps.make({ maxBodyBytes: 64 * 1024 });
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      await once(socket, 'connect');
      socket.write('POST /hooks/alice/github HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nX-GitHub-Delivery: d-1\r\nX-Hub-Signature-256: sha256=' + '0'.repeat(64) + '\r\n\r\n');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const chunk = `4000\r\n${' '.repeat(0x4000)}\r\n`;
      let sent = 0;
      let open = true;
      void closed.then(() => (open = false));
      const started = Date.now();
      // Keep sending as long as the server lets us, for at most 10 s.
      while (open && Date.now() - started < 10_000) {
        // Not events.once: it rejects on the EPIPE a closed socket emits.
        if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
        sent += chunk.length;
      }
      expect(open, 'the server kept reading an endless body').toBe(false);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('body_too_large');
      expect(sent).toBeLessThan(80 * 1024 * 1024);
      await expectNothingStored(t.store);
    } finally {
      await server.close({ forceAfterMs: 0 });
    }
  });

  it('a client that goes away halfway through its body is one debug line, not an error with a stack', async () => {
    const { lines, destination } = jsonLog();
    const t = await apps.make({}, { logger: createLogger({ level: 'debug', destination }) });
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      for (const path of ['/hooks/alice/github', '/inboxes/alice/messages', '/login']) {
        const socket = connect(server.port, '127.0.0.1');
        socket.on('error', () => undefined);
        await once(socket, 'connect');
        socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${SECRETS.token}\r\nIdempotency-Key: k\r\nContent-Type: application/x-www-form-urlencoded\r\nSec-Fetch-Site: same-origin\r\nContent-Length: 1000\r\n\r\n0123456789`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        socket.destroy();
      }
      const gone = (): Array<Record<string, unknown>> => lines.filter((l) => l.msg === 'the client went away before sending the whole body');
      for (let i = 0; i < 100 && gone().length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(gone().map((l) => [l.level, l.path])).toEqual([
        [20, '/hooks/alice/github'],
        [20, '/inboxes/alice/messages'],
        [20, '/login'],
      ]);
      expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
      await expectNothingStored(t.store);
    } finally {
      await server.close({ forceAfterMs: 0 });
    }
  });

  it('close() does not wait forever for a client that never finishes its body', async () => {
    const t = await apps.make();
    const server = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    const socket = connect(server.port, '127.0.0.1');
    // Being cut off may surface as a reset on this side: that is the point, not a failure.
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    // Promises 1000 bytes, sends 10, then goes quiet: the request stays in flight.
    socket.write('POST /hooks/alice/github HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789');
    // Not events.once: it rejects on the 'error' a reset emits before 'close'.
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await server.close({ forceAfterMs: 0 });
    await ended;
    await expectNothingStored(t.store);
  });

  it('a port already in use is an error from startHttpServer, not an unhandled event', async () => {
    const t = await apps.make();
    const first = await startHttpServer(t.app, { host: '127.0.0.1', port: 0 });
    try {
      await expect(startHttpServer(t.app, { host: '127.0.0.1', port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
