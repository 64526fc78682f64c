/**
 * The webhook route, `POST /hooks/<inbox>/<source>` and `POST
 * /hooks/<source>`, served straight from Node's request and response: the
 * only way a delivery comes in. Hono serves every other route. Hono's
 * router, context and web Request and Response cost about 13 µs of a
 * webhook's ~105 µs of server CPU: 11–13% more deliveries per second
 * without them (medians of three paired runs of the service benchmark's
 * load, with the inbox on tmpfs so that fsync's noise is out).
 *
 * What the route does with a delivery is receive-delivery.ts; this file is
 * the request and the answer: the path's segments (percent-decoded, as a
 * router would, the query ignored), the headers read from Node's raw list,
 * the body through the one body reader (read-body.ts), and the JSON answer.
 * A path that is not one of the two forms, or another method, is left to
 * Hono, which answers 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderReader } from './header-values.js';
import { logValue } from '../observability/log-value.js';
import { errorAnswer, type HttpContext, type JsonAnswer } from './http-context.js';
import { readBody } from './read-body.js';
import { receiveDelivery, type Delivery, type DeliveryAnswer } from './receive-delivery.js';

/** Serves the request and says true, or says false and leaves it untouched (for Hono). */
export type NodeRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

// One or two segments after /hooks/, none empty: /hooks/<inbox>/<source> or /hooks/<source>.
const HOOK_PATH = /^\/hooks\/([^/?#]+)(?:\/([^/?#]+))?(?:\?.*)?$/;

/** After a refused body, how long and how much of the rest is read and thrown away before the connection is closed. */
const DRAIN_MS = 500;
const DRAIN_BYTES = 64 * 1024 * 1024;

export function hookRoute(ctx: HttpContext): NodeRoute {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const path = HOOK_PATH.exec(req.url ?? '');
    if (path === null) return false;
    const [first, second] = [segment(path[1]!), path[2] === undefined ? undefined : segment(path[2])];
    const delivery = second === undefined ? new NodeDelivery(req, first, null) : new NodeDelivery(req, second, first);
    receive(ctx, req, res, delivery).catch((error: unknown) => {
      // Only writing the answer can fail here (errors of the delivery are answered): the connection is gone.
      ctx.logger.debug({ err: error, path: logValue(req.url ?? '') }, 'could not answer a webhook delivery');
      res.destroy();
    });
    return true;
  };
}

/** A path segment as a router hands it over: percent-decoded, or as it is when that fails (the id check refuses it then). */
function segment(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

async function receive(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, delivery: NodeDelivery): Promise<void> {
  let reply: DeliveryAnswer;
  try {
    reply = await receiveDelivery(ctx, delivery);
  } catch (error) {
    reply = errorAnswer(ctx, { method: 'POST', path: logValue(req.url!), ip: req.socket.remoteAddress ?? 'unknown' }, error);
  }
  await send(res, reply);
  if (!req.complete) settleUnread(req);
}

/**
 * The rest of a body nobody read (a refusal before reading, or past the
 * limit) is read and thrown away for a moment, so that a keep-alive
 * connection can carry the next request; then, or past a size, the
 * connection is closed: an endless body is not read on.
 */
function settleUnread(req: IncomingMessage): void {
  let read = 0;
  const close = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.socket.destroySoon();
  };
  const onData = (chunk: Buffer): void => {
    read += chunk.length;
    if (read > DRAIN_BYTES) close();
  };
  const timer = setTimeout(close, DRAIN_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', () => {
    clearTimeout(timer);
    req.off('data', onData);
  });
  req.resume();
}

/**
 * A delivery read from Node's request. A class rather than an object of
 * arrow functions, so that a delivery builds no closures: under tsx (as the
 * service benchmark runs the source) each closure named for its property is
 * also named by a defineProperty call, ~2% of the event loop's time there.
 */
class NodeDelivery implements Delivery {
  readonly headers: RawHeaders;

  constructor(
    private readonly req: IncomingMessage,
    readonly sourceName: string,
    readonly inboxInPath: string | null,
  ) {
    // The raw list, not req.headers: that would build Node's whole header object for one lookup.
    this.headers = new RawHeaders(req.rawHeaders);
  }

  allHeaders(): Record<string, string> {
    return this.headers.all();
  }

  readBody(maxBytes: number): Promise<Buffer> {
    return readBody(this.req, this.headers.get('content-length'), maxBytes);
  }
}

async function send(res: ServerResponse, reply: DeliveryAnswer): Promise<void> {
  if (reply instanceof Response) {
    // A provider's own acknowledgment (Slack's empty 200): rare, so read the web Response as it is.
    const body = Buffer.from(await reply.arrayBuffer());
    res.writeHead(reply.status, { ...Object.fromEntries(reply.headers), 'content-length': String(body.length) }).end(body);
    return;
  }
  const { status, json, headers }: JsonAnswer = reply;
  const body = JSON.stringify(json);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers }).end(body);
}

/**
 * Headers.get over Node's raw header list: a name in any case, the values
 * of a header sent more than once joined with ", " (Headers does the same),
 * null when missing. Values are Node's, one character per byte, as a web
 * Headers made from the same request holds them (header-values.ts reads them).
 */
class RawHeaders implements HeaderReader {
  constructor(private readonly raw: string[]) {}

  get(name: string): string | null {
    const wanted = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i < this.raw.length; i += 2) {
      const key = this.raw[i]!;
      if (key.length === wanted.length && key.toLowerCase() === wanted) value = value === null ? this.raw[i + 1]! : `${value}, ${this.raw[i + 1]!}`;
    }
    return value;
  }

  all(): Record<string, string> {
    const all: Record<string, string> = {};
    for (let i = 0; i < this.raw.length; i += 2) {
      const key = this.raw[i]!.toLowerCase();
      all[key] = all[key] === undefined ? this.raw[i + 1]! : `${all[key]}, ${this.raw[i + 1]!}`;
    }
    return all;
  }
}
