import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createConsoleChannel } from '../../src/channels/console.js';
import type { OutgoingMessage } from '../../src/channels/channel.js';

const message: OutgoingMessage = { inboxId: 'alice', body: 'hi\n\nthere', messages: [], id: 'alice:1-2', contact: null };

describe('console channel', () => {
  it('prints the inbox, the batch id and the body', async () => {
    const stream = new PassThrough();
    let printed = '';
    stream.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    await createConsoleChannel({ stream }).send(message, new AbortController().signal);
    expect(printed).toBe('--- to alice (alice:1-2) ---\nhi\n\nthere\n');
  });

  it('fails when the stream cannot be written', async () => {
    const broken = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error('EPIPE')) });
    broken.on('error', () => undefined);
    await expect(createConsoleChannel({ stream: broken }).send(message, new AbortController().signal)).rejects.toThrow('EPIPE');
  });
});
