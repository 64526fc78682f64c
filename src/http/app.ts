/**
 * The HTTP app: the webhook route on Node's request (hooks-on-node.ts) and
 * a Hono app for the rest, which tests call without a socket
 * (`app.hono.request()`); server.ts is the thin Node adapter that serves
 * both. Webhook sources are built here, once, from secrets the config
 * already read, so a bad source fails at startup rather than on the first
 * delivery.
 *
 * Pages of other layers (the dashboard) are mounted by whoever composes the
 * service, through `pages`: this layer does not import them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono, type Env } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { InboxRouter } from '../agent/agent.js';
import { systemClock, type Clock } from '../clock.js';
import type { RuntimeEvents } from '../events.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { InboxLimits, Store } from '../store/contract.js';
import { LIMIT_DEFAULTS } from '../store/index.js';
import { hookRoute } from './hooks-on-node.js';
import { errorBody, HttpError } from './http-error.js';
import { errorAnswer, requestFacts, type HttpContext } from './http-context.js';
import { WriteHealth } from './write-health.js';
import { WrongTokenLockout } from './wrong-token-lockout.js';
import { apiRoutes } from './routes/api.js';
import { approvalPageRoutes } from './routes/approval-pages.js';
import { healthRoutes } from './routes/health.js';
import { createSources, type SourceSpec } from './webhooks/index.js';

export interface AppDeps {
  store: Store;
  metrics: Metrics;
  logger: Logger;
  events: RuntimeEvents;
  /** The webhook sources by name, their secrets read. */
  sources: Record<string, SourceSpec>;
  /** The API's and the dashboard's Bearer token; undefined: both are off. */
  token: string | undefined;
  /** Signs and checks one-tap approval links; '' disables them. */
  linkSecret: string;
  /**
   * Where people reach this server; approval links and the dashboard's
   * same-origin check use it. A function when it is known only once the
   * server listens (port 0 without a configured publicUrl).
   */
  publicUrl: string | (() => string);
  /** Largest request body accepted (413 above). */
  maxBodyBytes: number;
  /** Each inbox's quotas on what arrives from outside (config `limits`); default the store's LIMIT_DEFAULTS. */
  limits?: InboxLimits;
  /** The users' channels' names (the dashboard offers them for an inbox's contacts). */
  channels: readonly string[];
  /** "Now" for replay windows and link expiry; default the system clock. */
  now?: Clock;
  /** The agent's route(), for POST /hooks/<source> (agent.ts, InboxRouter). */
  route?: InboxRouter;
}

/** What the routes share, built once. */
export function createHttpContext(deps: AppDeps): HttpContext {
  const now = deps.now ?? systemClock;
  const publicUrl = deps.publicUrl;
  return {
    store: deps.store,
    metrics: deps.metrics,
    logger: deps.logger,
    events: deps.events,
    now,
    maxBodyBytes: deps.maxBodyBytes,
    limits: deps.limits ?? LIMIT_DEFAULTS,
    sources: createSources(deps.sources),
    token: deps.token,
    linkSecret: deps.linkSecret,
    get publicOrigin() {
      return new URL(typeof publicUrl === 'string' ? publicUrl : publicUrl()).origin;
    },
    lockout: new WrongTokenLockout(now),
    writes: new WriteHealth(deps.store, now, deps.events),
    route: deps.route,
    channels: deps.channels,
  };
}

export interface HttpApp {
  /** Every route but the webhooks': a Hono app, for `hono.request()` in a test without a socket. */
  readonly hono: Hono;
  /** Node's request listener: the webhook route straight from Node's request, the rest through Hono. */
  readonly listener: (req: IncomingMessage, res: ServerResponse) => void;
}

export function createApp<E extends Env>(ctx: HttpContext, { pages = [] }: { pages?: Hono<E>[] } = {}): HttpApp {
  const app = new Hono();
  app.route('/', healthRoutes(ctx));
  app.route('/inboxes', apiRoutes(ctx));
  app.route('/a', approvalPageRoutes(ctx));
  // Browsers ask for it on every page; no icon, said once and cached, instead of a 404 each time.
  app.get('/favicon.ico', (c) => c.body(null, 204, { 'cache-control': 'public, max-age=604800' }));
  // Last: pages mounted at `/` own what no route above claimed (the dashboard: `/` and the pages below it).
  for (const sub of pages) app.route('/', sub);

  app.notFound((c) => c.json(errorBody(new HttpError(404, 'not_found', `no route for ${c.req.method} ${c.req.path}`)), 404));

  app.onError((error, c) => {
    // Hono's own middleware (bearer auth) answers with a response it built in our JSON shape.
    if (error instanceof HTTPException) return error.getResponse();
    const { status, json, headers } = errorAnswer(ctx, requestFacts(c), error);
    return c.json(json, status as ContentfulStatusCode, headers);
  });

  const viaHono = getRequestListener(app.fetch);
  const hooks = hookRoute(ctx);
  return {
    hono: app,
    listener: (req, res) => {
      if (!hooks(req, res)) void viaHono(req, res);
    },
  };
}
