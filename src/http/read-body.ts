/**
 * Reads a request body up to a limit, counting while it reads. Checking the
 * size after buffering would let one client make the process hold a body of
 * any size; Content-Length alone is not enough either (chunked bodies have
 * none, and a client may lie).
 */
import { HttpError } from './http-error.js';

export async function readBody(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Stop pulling: the rest of the body is never read into memory.
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'body_too_large', `the body is larger than the limit of ${maxBytes} bytes`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as JSON; 400 bad_json when it is not. Invalid UTF-8 is refused
 * rather than decoded with replacement characters: storing something other
 * than what was sent is a quiet data loss.
 */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(utf8.decode(body)) as unknown;
  } catch {
    throw new HttpError(400, 'bad_json', 'the body is not valid JSON');
  }
}
