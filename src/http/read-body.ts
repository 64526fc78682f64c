/**
 * Request bodies, read within a limit by Hono's own bodyLimit middleware
 * (hono/body-limit): a declared Content-Length over the limit is refused
 * before a byte is read, and a body without one (chunked) is counted while
 * it is read and refused as soon as it passes the limit, so one client
 * cannot make the process hold a body of any size. The refusal is the
 * service's JSON 413 `body_too_large` (bodyLimit's own is plain text).
 *
 * A thin wrap, for speed: for a body with a Content-Length, bodyLimit only
 * compares the header, but first reads `c.req.raw.body`, which on
 * @hono/node-server builds a whole web Request and stream for every
 * delivery (measured: 2.4x the server's CPU per webhook, a third of the
 * throughput). So that one comparison is made here, the body is then read by
 * the adapter's direct path (Node enforces the declared length), and only
 * bodies without a length go through bodyLimit.
 *
 * Called from the route, not mounted in front of it: the cheap checks (an
 * inbox id, a source name) refuse a request before any of its body is read.
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HttpError } from './http-error.js';
import type { HeaderReader } from './webhooks/verifier.js';

/** 413 body_too_large: what every body over the limit gets, read or not (hooks-on-node.ts too). */
export function bodyTooLarge(maxBytes: number): HttpError {
  return new HttpError(413, 'body_too_large', `the body is larger than the limit of ${maxBytes} bytes`);
}

export async function readRequestBody(c: Context, maxBytes: number): Promise<Buffer> {
  const tooLarge = (): never => {
    throw bodyTooLarge(maxBytes);
  };
  try {
    const declared = c.req.header('content-length');
    if (declared !== undefined && /^\d+$/.test(declared) && c.req.header('transfer-encoding') === undefined) {
      if (Number(declared) > maxBytes) tooLarge();
    } else {
      await bodyLimit({ maxSize: maxBytes, onError: tooLarge })(c, async () => undefined);
    }
    return Buffer.from(await c.req.arrayBuffer());
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // Nothing on our side can fail while a request body is read: the client's connection did.
    throw new ClientWentAway(error);
  }
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
