/**
 * The HTTP app: a Hono app that tests call without a socket
 * (`app.request()`); server.ts is the thin Node adapter. Secrets are
 * resolved and verifiers built here, once, so a bad config fails at
 * startup rather than on the first delivery.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { InboxRouter } from '../agent/agent.js';
import { systemClock, type Clock } from '../clock.js';
import type { ServiceConfig } from '../config/schema.js';
import { resolveApiToken, resolveLongSecret } from '../config/secrets.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { RuntimeEvents } from '../events.js';
import type { Store } from '../store/contract.js';
import { dashboardRoutes } from '../dashboard/dashboard-routes.js';
import { errorBody, HttpError } from './http-error.js';
import { errorAnswer, requestFacts, type HttpContext } from './http-context.js';
import { WriteHealth } from './write-health.js';
import { WrongTokenLockout } from './wrong-token-lockout.js';
import { apiRoutes } from './routes/api.js';
import { approvalPageRoutes } from './routes/approval-pages.js';
import { healthRoutes } from './routes/health.js';
import { hookRoutes } from './routes/hooks.js';
import { createSources } from './webhooks/index.js';
import { serveHooksOnNode } from './hooks-on-node.js';

export interface AppDeps {
  store: Store;
  config: ServiceConfig;
  metrics: Metrics;
  logger: Logger;
  events: RuntimeEvents;
  /** Signs and checks one-tap approval links; '' disables them. May be "env:VAR". */
  linkSecret: string;
  /** Where people reach this server; approval links are built on it (see approvalUrl). */
  publicUrl: string;
  /** "Now" for replay windows and link expiry; default the system clock. */
  now?: Clock;
  /** Where "env:VAR" secrets are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The agent's route(), for POST /hooks/<source> (agent.ts, InboxRouter). */
  route?: InboxRouter;
}

export function createApp(deps: AppDeps): Hono {
  const env = deps.env ?? process.env;
  const ctx: HttpContext = {
    store: deps.store,
    metrics: deps.metrics,
    logger: deps.logger,
    events: deps.events,
    now: deps.now ?? systemClock,
    maxBodyBytes: deps.config.maxBodyBytes,
    sources: createSources(deps.config.sources, env),
    token: resolveApiToken(deps.config.token, env),
    linkSecret: deps.linkSecret === '' ? '' : resolveLongSecret(deps.linkSecret, env, 'linkSecret'),
    publicOrigin: new URL(deps.publicUrl).origin,
    lockout: new WrongTokenLockout(deps.now ?? systemClock),
    writes: new WriteHealth(deps.now ?? systemClock),
    route: deps.route,
    channels: Object.keys(deps.config.channels),
  };

  const app = new Hono();
  app.route('/', healthRoutes(ctx));
  app.route('/hooks', hookRoutes(ctx));
  app.route('/inboxes', apiRoutes(ctx));
  app.route('/a', approvalPageRoutes(ctx));
  // Browsers ask for it on every page; no icon, said once and cached, instead of a 404 each time.
  app.get('/favicon.ico', (c) => c.body(null, 204, { 'cache-control': 'public, max-age=604800' }));
  // Last: the dashboard owns `/` and the pages below it that no route above claimed.
  app.route('/', dashboardRoutes(ctx));

  app.notFound((c) => c.json(errorBody(new HttpError(404, 'not_found', `no route for ${c.req.method} ${c.req.path}`)), 404));

  app.onError((error, c) => {
    // Hono's own middleware (bearer auth, body limit) answers with a response it built in our JSON shape.
    if (error instanceof HTTPException) return error.getResponse();
    const { status, json, headers } = errorAnswer(ctx, requestFacts(c), error);
    return c.json(json, status as ContentfulStatusCode, headers);
  });

  serveHooksOnNode(app, ctx);
  return app;
}
