/**
 * The one body reader (src/http/read-body.ts), below the routes: a declared
 * length over the limit is refused before a byte is read, a body without
 * one is cut off once it passes the limit and the rest is never pulled, a
 * stream that fails or closes early is the client going away, and a Hono
 * route without a socket (app.request) reads its web body the same way.
 */
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.js';
import { ClientWentAway, readBody, readRequestBody } from '../../src/http/read-body.js';

const LIMIT = 64 * 1024;

/** An endless stream of 16 KiB chunks that counts what was pulled from it. */
function endless(): { stream: Readable; pulled(): number } {
  let pulled = 0;
  const chunk = Buffer.alloc(16 * 1024, 0x20);
  const stream = new Readable({
    read() {
      pulled += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

async function refusal(reading: Promise<unknown>): Promise<unknown> {
  return reading.then(
    () => {
      throw new Error('read whole');
    },
    (error: unknown) => error,
  );
}

describe('readBody', () => {
  it('refuses a declared length over the limit before reading a byte', async () => {
    const { stream, pulled } = endless();
    const error = await refusal(readBody(stream, String(LIMIT + 1), LIMIT));
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 413, code: 'body_too_large' });
    expect(pulled()).toBe(0);
  });

  it('cuts a body with no length off at the limit while reading: the rest is never pulled', async () => {
    const { stream, pulled } = endless();
    expect(await refusal(readBody(stream, null, LIMIT))).toMatchObject({ status: 413, code: 'body_too_large' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The limit, what was in flight when it passed, and the stream's own read-ahead (its highWaterMark).
    expect(pulled()).toBeLessThanOrEqual(LIMIT + 16 * 1024 + stream.readableHighWaterMark + 16 * 1024);
  });

  it('reads a body of exactly the limit whole, in order', async () => {
    const parts = [Buffer.alloc(LIMIT / 2, 'a'), Buffer.alloc(LIMIT / 2, 'b')];
    const body = await readBody(Readable.from(parts), null, LIMIT);
    expect(body.equals(Buffer.concat(parts))).toBe(true);
  });

  it('a stream that fails, or closes before its end, is the client going away', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('ECONNRESET'));
      },
    });
    expect(await refusal(readBody(failing, null, LIMIT))).toBeInstanceOf(ClientWentAway);
    const closing = new Readable({ read() {} });
    const reading = readBody(closing, null, LIMIT);
    closing.destroy();
    expect(await refusal(reading)).toBeInstanceOf(ClientWentAway);
  });
});

describe('readRequestBody in a Hono route without a socket', () => {
  it('reads the web body within the limit, and refuses one over it with 413', async () => {
    const app = new Hono();
    app.post('/echo', async (c) => c.text((await readRequestBody(c, 16)).toString('utf8')));
    app.onError((error, c) => c.json({ code: (error as HttpError).code }, (error as HttpError).status as 413));
    expect(await (await app.request('/echo', { method: 'POST', body: 'hello' })).text()).toBe('hello');
    const big = await app.request('/echo', { method: 'POST', body: 'x'.repeat(17) });
    expect([big.status, await big.json()]).toEqual([413, { code: 'body_too_large' }]);
  });
});
