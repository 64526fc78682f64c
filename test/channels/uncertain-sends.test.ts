/**
 * The HTTP channels know when a send is uncertain: the request went out
 * whole and then no answer came (a timeout, a dropped connection). Against
 * local receivers on 127.0.0.1 that read the request and then hold it, or
 * drop it; one that refuses the connection never got it (a retry).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/channel.js';
import { createSlackChannel } from '../../src/channels/slack.js';
import { createWebhookChannel } from '../../src/channels/webhook.js';
import { defer } from '../runtime/helpers.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const message: OutgoingMessage = { inboxId: 'alice', body: 'hello', messages: [{ id: 1, body: 'hello', urgent: false, channel: null }], id: 'alice:1-1', contact: 'D0ANA' };

/** A receiver that reads each request whole, then does `then` with it (hold it open, or drop the connection). */
async function receiver(then: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      then(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

const hold = (): void => undefined;
const drop = (req: IncomingMessage): void => void req.socket.destroy();

describe('HTTP channels: uncertain sends', () => {
  it('webhook: a receiver that took the request and does not answer within timeoutMs is uncertain, naming the receiver, never the URL', async () => {
    const { url, bodies } = await receiver(hold);
    const result = await createWebhookChannel({ url: `${url}/hooks/secret-path`, secret, timeoutMs: 150 }).send(message, new AbortController().signal);
    expect(result).toEqual({ status: 'uncertain', reason: expect.stringMatching(/^webhook 127\.0\.0\.1:\d+ did not answer within 150 ms, after the request was sent: it may have landed$/) });
    expect(JSON.stringify(result)).not.toContain('secret-path');
    expect(bodies).toHaveLength(1);
  });

  it('webhook: a connection dropped after the request was sent is uncertain', async () => {
    const { url, bodies } = await receiver(drop);
    const result = await createWebhookChannel({ url, secret, timeoutMs: 5_000 }).send(message, new AbortController().signal);
    expect(result).toMatchObject({ status: 'uncertain', reason: expect.stringContaining('the connection ended before an answer, after the request was sent') });
    expect(bodies).toHaveLength(1);
  });

  it('webhook: a receiver that cannot be reached never got it: the send throws (a retry), it is not uncertain', async () => {
    const { url } = await receiver(hold);
    const closed = await new Promise<string>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const port = (server.address() as AddressInfo).port;
        server.close(() => resolve(`http://127.0.0.1:${port}`));
      });
    });
    expect(url).not.toBe(closed);
    await expect(createWebhookChannel({ url: closed, secret, timeoutMs: 2_000 }).send(message, new AbortController().signal)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('slack, bot mode and incoming webhook: a request sent and never answered is uncertain', async () => {
    const { url, bodies } = await receiver(hold);
    const bot = createSlackChannel({ botToken: 'xoxb-secret-token', apiUrl: url, timeoutMs: 150 });
    const bot1 = await bot.send(message, new AbortController().signal);
    expect(bot1).toMatchObject({ status: 'uncertain', reason: expect.stringContaining('slack chat.postMessage did not answer within 150 ms') });
    expect(JSON.stringify(bot1)).not.toContain('xoxb');
    const hook = await createSlackChannel({ url: `${url}/services/T0/B0/secret`, timeoutMs: 150 }).send(message, new AbortController().signal);
    expect(hook).toMatchObject({ status: 'uncertain', reason: expect.stringContaining('slack incoming webhook did not answer within 150 ms') });
    expect(JSON.stringify(hook)).not.toContain('secret');
    expect(bodies).toHaveLength(2);
  });
});
