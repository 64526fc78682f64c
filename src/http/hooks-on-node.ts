/**
 * `POST /hooks/<inbox>/<source>`, the route every signed delivery takes,
 * served straight from Node's request and response: the route's own code
 * (receiveDelivery in routes/hooks.ts: the same checks, in the same order,
 * the same answers and errors), without Hono's router, context and web
 * Request and Response around it. Those cost about 13 µs of a webhook's
 * ~105 µs of server CPU: 11–13% more deliveries per second through either
 * way of committing (medians of three paired runs of the service
 * benchmark's load, with the inbox on tmpfs so that fsync's noise is out).
 *
 * Only the plain form of the route is taken here: a path with nothing to
 * decode (no percent escapes, no query, ids of the characters ids allow),
 * and a declared Content-Length (so not chunked). Anything else, every
 * other route, and an app someone has added routes or middleware to after
 * createApp (they must not be bypassed) goes through Hono, as before.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { errorAnswer, type HttpContext, type JsonAnswer } from './http-context.js';
import { bodyTooLarge, ClientWentAway } from './read-body.js';
import { receiveDelivery, type Delivery, type DeliveryAnswer } from './routes/hooks.js';
import type { HeaderReader } from './webhooks/index.js';

/** Serves the request and says true, or says false and leaves it untouched for Hono. */
export type NodeRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

// Segments as inbox ids and source names may be spelled (INBOX_ID_PATTERN, the config's source names):
// nothing in them for Hono to decode, and no "." or ".." segment for a URL to resolve.
const HOOK_PATH = /^\/hooks\/([A-Za-z0-9][A-Za-z0-9._-]{0,127})\/([a-z0-9][a-z0-9_-]{0,63})$/;

const routes = new WeakMap<Hono, { route: NodeRoute; routeCount: number }>();

/** Called by createApp once its routes are in place. */
export function serveHooksOnNode(app: Hono, ctx: HttpContext): void {
  routes.set(app, { route: (req, res) => take(ctx, req, res), routeCount: app.routes.length });
}

/** The route for startHttpServer, or undefined for an app createApp did not make or that was changed since. */
export function hooksOnNode(app: Hono): NodeRoute | undefined {
  const entry = routes.get(app);
  return entry !== undefined && entry.routeCount === app.routes.length ? entry.route : undefined;
}

function take(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'POST') return false;
  const path = HOOK_PATH.exec(req.url ?? '');
  if (path === null) return false;
  // The raw list, not req.headers: that would build Node's whole header object for one lookup.
  const headers = new RawHeaders(req.rawHeaders);
  // A chunked body has no Content-Length (Node answers 400 to a request that sends both).
  const declared = headers.get('content-length');
  if (declared === null || !/^\d+$/.test(declared)) return false;
  receive(ctx, req, res, new NodeDelivery(req, headers, path[2]!, path[1]!, Number(declared))).catch((error: unknown) => {
    // Only writing the answer can fail here (errors of the delivery are answered): the connection is gone.
    ctx.logger.debug({ err: error, path: req.url }, 'could not answer a webhook delivery');
    res.destroy();
  });
  return true;
}

async function receive(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, delivery: NodeDelivery): Promise<void> {
  let reply: DeliveryAnswer;
  try {
    reply = await receiveDelivery(ctx, delivery);
  } catch (error) {
    reply = errorAnswer(ctx, { method: 'POST', path: req.url!, ip: req.socket.remoteAddress ?? 'unknown' }, error);
  }
  await send(res, reply);
}

/**
 * A delivery read from Node's request. A class rather than an object of
 * arrow functions, so that a delivery builds no closures: under tsx (as the
 * service benchmark runs the source) each closure named for its property is
 * also named by a defineProperty call, ~2% of the event loop's time there.
 */
class NodeDelivery implements Delivery {
  constructor(
    private readonly req: IncomingMessage,
    readonly headers: RawHeaders,
    readonly sourceName: string,
    readonly inboxInPath: string,
    private readonly declared: number,
  ) {}

  allHeaders(): Record<string, string> {
    return this.headers.all();
  }

  /** As readRequestBody: a declared length over the limit is refused before a byte is read; Node reads no more than it declares. */
  readBody(maxBytes: number): Promise<Buffer> {
    const req = this.req;
    if (this.declared > maxBytes) return Promise.reject(bodyTooLarge(maxBytes));
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      req.once('error', (error) => reject(new ClientWentAway(error)));
      req.once('close', () => {
        if (!req.complete) reject(new ClientWentAway(new Error('the connection closed before the body was complete')));
      });
    });
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
