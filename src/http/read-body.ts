/**
 * Request bodies, read within a limit: one reader for every route, over
 * Node's request stream. A declared Content-Length over the limit is
 * refused before a byte is read; a body without one (chunked) is counted
 * while it is read and refused as soon as it passes the limit, so one
 * client cannot make the process hold a body of any size. The refusal is
 * the service's JSON 413 `body_too_large`.
 *
 * Why not Hono's bodyLimit: the webhook route is served from Node's request
 * without Hono (hooks-on-node.ts, for throughput), and bodyLimit reads
 * `c.req.raw.body`, which on @hono/node-server builds a web Request and
 * stream for every request (measured: 2.4x the server's CPU per webhook).
 * The Hono routes read the same Node request (readRequestBody), so every
 * body is read one way; under `app.request()` (tests without a socket) the
 * web body is turned into a Node stream first.
 *
 * Called from the routes, not mounted in front of them: the cheap checks
 * (an inbox id, a source name) refuse a request before any of its body is read.
 */
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { HeaderReader } from './header-values.js';
import { HttpError } from './http-error.js';

/** 413 body_too_large: what every body over the limit gets, read or not. */
export function bodyTooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'body_too_large', `the body is larger than the limit of ${maxBytes} bytes`);
}

/**
 * The body of `stream`, within `maxBytes`. `declaredLength` is the request's
 * Content-Length header when it has one (Node reads no more than it says).
 * A stream that ends early or fails is the client going away (ClientWentAway).
 * Over the limit: `tooLarge()` (the credential proxy answers in its own shape).
 */
export function readBody(
  stream: Readable,
  declaredLength: string | null | undefined,
  maxBytes: number,
  tooLarge: () => Error = () => bodyTooLarge(maxBytes),
): Promise<Buffer> {
  if (declaredLength !== null && declaredLength !== undefined && /^\d+$/.test(declaredLength) && Number(declaredLength) > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        // Stop here: what is left is not read on (the server drains or closes the connection, hooks-on-node.ts).
        done();
        stream.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (error: Error): void => {
      done();
      reject(new ClientWentAway(error));
    };
    const onClose = (): void => {
      done();
      reject(new ClientWentAway(new Error('the connection closed before the body was complete')));
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}

/** The body of a request a Hono route serves: Node's request when @hono/node-server serves it, else the web request's body. */
export function readRequestBody(c: Context, maxBytes: number): Promise<Buffer> {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  const declared = c.req.header('content-length');
  if (incoming instanceof Readable) return readBody(incoming, declared, maxBytes);
  const body = c.req.raw.body;
  return readBody(body === null ? Readable.from([]) : Readable.fromWeb(body as import('node:stream/web').ReadableStream), declared, maxBytes);
}

/**
 * The client closed the connection before its body was complete. Nobody is
 * left to answer, and nothing is wrong here: a debug line, not an error with
 * a stack (anyone can open 300 connections and drop them halfway).
 */
export class ClientWentAway extends Error {
  constructor(cause: unknown) {
    super('the client went away before sending the whole body', { cause });
    this.name = 'ClientWentAway';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The deepest nesting of arrays and objects a JSON body may have. Providers
 * send a few levels (GitHub's deepest payloads have about ten; Slack's
 * Block Kit about fifteen), so 64 refuses nothing real, while a body nested
 * thousands deep would exhaust the stack of any code that walks it
 * recursively (the store's own payload check did: a 500).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The body as JSON; 400 bad_json when it is not, 400 too_deep when it nests
 * deeper than MAX_JSON_DEPTH. Invalid UTF-8 is refused rather than decoded
 * with replacement characters: storing something other than what was sent
 * is a quiet data loss.
 */
export function parseJson(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new HttpError(400, 'bad_json', 'the body is not valid JSON');
  }
  return parseJsonText(text, 'the body');
}

const FORM = 'application/x-www-form-urlencoded';

/** The body is a URL-encoded form (by its Content-Type). */
export function isForm(headers: HeaderReader): boolean {
  return (headers.get('content-type') ?? '').toLowerCase().startsWith(FORM);
}

/**
 * A URL-encoded form's fields. Its bytes must be UTF-8 (a form's are ASCII,
 * with everything else percent-encoded): 400 bad_form otherwise.
 */
export function parseForm(body: Buffer): URLSearchParams {
  try {
    return new URLSearchParams(utf8.decode(body));
  } catch {
    throw new HttpError(400, 'bad_form', 'the body is not a valid URL-encoded form');
  }
}

/** JSON text from inside a body (a form field), under the same rules; `what` names it in the error. */
export function parseJsonText(text: string, what: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new HttpError(400, 'too_deep', `${what} nests deeper than ${MAX_JSON_DEPTH} levels of JSON arrays and objects`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'bad_json', `${what} is not valid JSON`);
  }
}

/** One pass, no recursion: brackets outside strings (whatever the text is; JSON.parse judges the rest). */
function nestsDeeperThan(text: string, limit: number): boolean {
  // Nesting deeper than `limit` takes more than `limit` opening brackets. Most bodies (a webhook's few objects)
  // have fewer in all, counted by the native indexOf: then the character-by-character walk is not needed.
  if (openingsAtMost(text, limit)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** Whether `text` holds at most `limit` of '[' and '{' together, anywhere (inside strings too: an upper bound). */
function openingsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > limit) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > limit) return false;
  return true;
}
