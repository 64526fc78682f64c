import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createConsoleChannel } from '../../src/channels/console.js';
import type { OutgoingMessage } from '../../src/channels/channel.js';

const message: OutgoingMessage = { inboxId: 'alice', body: 'hi\n\nthere', messages: [], id: 'alice:1-2', contact: null };

/** A body as a hostile user gets an echoing agent to write it: a whole fake log line, and terminal escapes. */
const FORGED = 'ok\n{"level":50,"time":1,"pid":1,"hostname":"h","msg":"FORGED"}\n\u001b[2J\u001b[31mred\rover\u0007';

async function printed(format: 'text' | 'json' | undefined, body: string, tty = false): Promise<string> {
  const stream = new PassThrough();
  if (tty) Object.assign(stream, { isTTY: true });
  let out = '';
  stream.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  await createConsoleChannel({ stream, ...(format === undefined ? {} : { format }) }).send({ ...message, body }, new AbortController().signal);
  return out;
}

describe('console channel', () => {
  it('on a terminal, prints the inbox, the batch id and the body as text', async () => {
    expect(await printed(undefined, 'hi\n\nthere', true)).toBe('--- to alice (alice:1-2) ---\nhi\n\nthere\n');
  });

  it('elsewhere (the JSON log stream), prints one JSON record per batch, the body a string field', async () => {
    const out = await printed(undefined, 'hi\n\nthere');
    expect(out.endsWith('\n')).toBe(true);
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(out)).toEqual({ level: 30, time: expect.any(Number), channel: 'console', inboxId: 'alice', contact: null, batch: 'alice:1-2', body: 'hi\n\nthere', msg: 'message printed by the console channel' });
  });

  it('a body cannot forge a log line or carry a control character into the JSON stream', async () => {
    const out = await printed('json', FORGED);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, body: FORGED });
    expect([...out.slice(0, -1)].filter((c) => c < ' ' || c === '\u007f')).toEqual([]);
  });

  it('on a terminal, control characters are shown as escapes (newlines and tabs kept)', async () => {
    const out = await printed('text', `${FORGED}\tend`);
    expect(out).toBe('--- to alice (alice:1-2) ---\nok\n{"level":50,"time":1,"pid":1,"hostname":"h","msg":"FORGED"}\n\\u001b[2J\\u001b[31mred\\u000dover\\u0007\tend\n');
  });

  it('fails when the stream cannot be written', async () => {
    const broken = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error('EPIPE')) });
    broken.on('error', () => undefined);
    await expect(createConsoleChannel({ stream: broken }).send(message, new AbortController().signal)).rejects.toThrow('EPIPE');
  });
});
