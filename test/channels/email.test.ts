import { createServer, type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../src/channels/channel.js';
import { createEmailChannel, messageIdFor } from '../../src/channels/email.js';
import { defer } from '../runtime/helpers.js';

interface Mail {
  from: string | undefined;
  to: string[];
  raw: string;
  user: string | undefined;
}

/** A local SMTP server on 127.0.0.1 that keeps every message; `refuse` rejects recipients. */
async function startSmtp(options: { refuse?: boolean; auth?: boolean } = {}): Promise<{ port: number; mails: Mail[] }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    disabledCommands: options.auth === true ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: options.auth !== true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'agent' && auth.password === 'hunter2') callback(null, { user: auth.username });
      else callback(new Error('bad credentials'));
    },
    onRcptTo(address, _session, callback) {
      callback(options.refuse === true ? new Error(`no mailbox ${address.address}`) : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        mails.push({
          from: from === false ? undefined : from.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, mails };
}

const message: OutgoingMessage = {
  inboxId: 'alice',
  body: 'Your refund of 5 EUR is done.\n\nAnything else?',
  messages: [
    { id: 3, body: 'Your refund of 5 EUR is done.', urgent: false, channel: null },
    { id: 4, body: 'Anything else?', urgent: false, channel: null },
  ],
  id: 'alice:3-4',
  contact: null,
};

function header(raw: string, name: string): string | undefined {
  const match = new RegExp(`^${name}: (.*)$`, 'mi').exec(raw);
  return match?.[1]?.trim();
}

describe('email channel', () => {
  it('sends one mail per batch with a Message-ID derived from the batch id, the same on a resend', async () => {
    const smtp = await startSmtp();
    const channel = createEmailChannel({ host: '127.0.0.1', port: smtp.port, from: 'Vigil <agent@example.com>', to: 'alice@example.org', subject: 'From your agent' });
    defer(() => channel.close?.());
    await channel.send(message, new AbortController().signal);
    await channel.send(message, new AbortController().signal); // at-least-once: the same batch again

    expect(smtp.mails).toHaveLength(2);
    const [first, second] = smtp.mails;
    expect(first).toMatchObject({ from: 'agent@example.com', to: ['alice@example.org'] });
    expect(header(first!.raw, 'Subject')).toBe('From your agent');
    expect(header(first!.raw, 'Message-ID')).toBe(messageIdFor('alice:3-4', 'example.com'));
    expect(header(first!.raw, 'Message-ID')).toMatch(/^<vigil\.[0-9a-f]{32}@example\.com>$/);
    expect(header(second!.raw, 'Message-ID')).toBe(header(first!.raw, 'Message-ID'));
    expect(header(first!.raw, 'X-Vigil-Batch')).toBe('alice:3-4');
    expect(first!.raw).toContain('Your refund of 5 EUR is done.');
    expect(first!.raw).toContain('Anything else?');
  });

  it('a different batch gets a different Message-ID', () => {
    expect(messageIdFor('alice:3-4', 'x.org')).not.toBe(messageIdFor('alice:3-5', 'x.org'));
  });

  it('logs in when given a user and password', async () => {
    const smtp = await startSmtp({ auth: true });
    const channel = createEmailChannel({ host: '127.0.0.1', port: smtp.port, user: 'agent', password: 'hunter2', from: 'agent@example.com', to: 'alice@example.org' });
    defer(() => channel.close?.());
    await channel.send(message, new AbortController().signal);
    expect(smtp.mails[0]!.user).toBe('agent');
  });

  it('a mail the server refuses with a 5xx is rejected for good (no retry can fix it), naming why', async () => {
    const smtp = await startSmtp({ refuse: true });
    const channel = createEmailChannel({ host: '127.0.0.1', port: smtp.port, from: 'agent@example.com', to: 'nobody@example.org' });
    defer(() => channel.close?.());
    expect(await channel.send(message, new AbortController().signal)).toEqual({
      status: 'rejected',
      reason: expect.stringMatching(/the mail server refused it: .*(nobody@example\.org|rejected|550|5\d\d)/i),
    });
    expect(smtp.mails).toHaveLength(0);
  });

  it("goes to the inbox's contacts.email, else to the configured `to`; with neither it needs a contact", async () => {
    const smtp = await startSmtp();
    const withFallback = createEmailChannel({ host: '127.0.0.1', port: smtp.port, from: 'agent@example.com', to: 'ops@example.com' });
    const personal = createEmailChannel({ host: '127.0.0.1', port: smtp.port, from: 'agent@example.com' });
    defer(() => withFallback.close?.());
    defer(() => personal.close?.());
    expect([withFallback.contact, personal.contact]).toEqual(['optional', 'required']);
    await withFallback.send({ ...message, contact: 'ana@example.com' }, new AbortController().signal);
    await withFallback.send(message, new AbortController().signal);
    expect(smtp.mails.map((mail) => mail.to)).toEqual([['ana@example.com'], ['ops@example.com']]);
  });

  it('a server that took the message data and never answers: uncertain (it may have it); one that never greets: a retry (it cannot have it)', async () => {
    // Reads the whole message, then holds its reply past the channel's timeout.
    const held: (() => void)[] = [];
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      authOptional: true,
      logger: false,
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => held.push(() => callback()));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise<void>((resolve) => (held.splice(0).forEach((answer) => answer()), server.close(() => resolve()))));
    const port = (server.server.address() as AddressInfo).port;
    const channel = createEmailChannel({ host: '127.0.0.1', port, from: 'agent@example.com', to: 'ops@example.com', timeoutMs: 300 });
    const result = await channel.send(message, new AbortController().signal);
    expect(result).toMatchObject({ status: 'uncertain', reason: expect.stringMatching(/^the mail server did not answer after the message was sent \(.+\): it may have it$/) });
    expect(held).toHaveLength(1);

    // A TCP server that accepts and never says a word: the message never left.
    const silent = createServer((socket) => void socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    defer(() => new Promise<void>((resolve) => silent.close(() => resolve())));
    const mute = createEmailChannel({ host: '127.0.0.1', port: (silent.address() as AddressInfo).port, from: 'agent@example.com', to: 'ops@example.com', timeoutMs: 300 });
    await expect(mute.send(message, new AbortController().signal)).rejects.toThrow(/greeting|timeout/i);
  });
});
