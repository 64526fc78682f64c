/**
 * `vigil serve` as a function: the store, the HTTP app and server, the
 * worker pool and the dispatcher, wired to one metrics registry, one logger
 * and one runtime event stream. Everything it starts, `stop()` stops, in
 * the order that loses nothing: stop taking work, let runs finish, release
 * leases, then close the server, the channels and the store.
 */
import type { Agent } from '../agent/agent.js';
import { routeClaudeSdkWarnings } from '../agent/claude/sdk-warnings.js';
import { createChannels, usersChannels } from '../channels/create-channels.js';
import type { ServiceConfig } from '../config/resolve-config.js';
import { dashboardRoutes } from '../dashboard/dashboard-routes.js';
import { approvalUrl } from '../http/approval-links.js';
import { createApp, createHttpContext, type AppDeps, type HttpApp } from '../http/app.js';
import { startHttpServer } from '../http/server.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { observe } from '../observability/observe.js';
import { RUNTIME_DEFAULTS } from '../runtime/defaults.js';
import { Dispatcher } from '../runtime/dispatcher.js';
import { OperatorMessages } from '../runtime/operator-messages.js';
import { Pruner } from '../runtime/pruner.js';
import { RuntimeEvents } from '../events.js';
import { WorkerPool } from '../runtime/worker-pool.js';
import type { Store } from '../store/contract.js';
import { openStore, redactStoreUrl } from '../store/index.js';
import { VigilError } from '../errors.js';
import { createProxyFetch } from '../agent/proxy-fetch.js';
import { loadAgent } from './load-agent.js';

export interface ServiceOptions {
  logger?: Logger;
  /** Where the console channel prints (default stdout). */
  stdout?: NodeJS.WritableStream;
  /** How it prints: as the logs do (default: text on a terminal, JSON records otherwise). */
  consoleFormat?: 'text' | 'json';
}

export interface Service {
  /** Where the HTTP server listens, e.g. http://127.0.0.1:8787. */
  url: string;
  store: Store;
  events: RuntimeEvents;
  metrics: Metrics;
  logger: Logger;
  /** The agent runs start with now (replaceAgent changes it). */
  readonly agent: Agent;
  /** The demo agent's refunds ledger (null with a user's agent). */
  refundsFile: string | null;
  /** Messages for the operator: to the channels with `"audience": "operator"` only. */
  operator: OperatorMessages;
  /**
   * Runs from now on use `agent` (`vigil dev` after an edit). Between runs,
   * never inside one: the worker pool stops claiming, the runs in hand
   * finish with the agent they started with and release their leases, then
   * a new pool starts with `agent`. Webhooks are taken all along; what
   * arrives meanwhile waits in its inbox for the new agent.
   */
  replaceAgent(agent: Agent): Promise<void>;
  /** Stops claiming, lets runs finish for up to `graceMs`, releases leases, closes everything. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts the service on `config`, resolved (config/resolve-config.ts): its secrets are read already, and nothing here reads the environment. */
export async function startService(config: ServiceConfig, options: ServiceOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger({ level: config.log.level });
  const metrics = createMetrics();
  const events = new RuntimeEvents((error, name) => logger.error({ err: error, event: name }, 'a listener of %s threw; the operation it reports stands', name));

  // Everything that can fail on a bad config fails here, before the store opens or a port is taken.
  const { agent, refundsFile } = await loadAgent(config.agent, config.store, config.demo);
  const channels = createChannels(config.channels, {
    ...(options.stdout === undefined ? {} : { stdout: options.stdout }),
    ...(options.consoleFormat === undefined ? {} : { consoleFormat: options.consoleFormat }),
  });
  const allChannels = [...channels.users, ...channels.operator];

  const store = await openStore(config.store, { ...config.engine, events, ...(config.budget === undefined ? {} : { budget: config.budget }) });
  const stopLogging = observe(events, { metrics, logger });
  const stopSdkWarnings = routeClaudeSdkWarnings(logger);
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  let pool: WorkerPool | undefined;
  let makePool: ((agent: Agent) => WorkerPool) | undefined;
  let dispatcher: Dispatcher | undefined;
  let pruner: Pruner | undefined;
  try {
    // With port 0 and no publicUrl the address is known only once listening: links read it then.
    let publicUrl = config.publicUrl ?? `http://${config.host}:${config.port}`;
    const app = createServiceApp({
      ...httpDepsOf(config),
      store,
      metrics,
      logger,
      events,
      publicUrl: () => publicUrl,
      ...(agent.route === undefined ? {} : { route: agent.route }),
    });
    server = await startHttpServer(app, { host: config.host, port: config.port });
    if (config.publicUrl === undefined) publicUrl = server.url;

    const linkSecret = config.linkSecret;
    makePool = (runs: Agent): WorkerPool =>
      new WorkerPool({
        store,
        agent: runs,
        logger,
        concurrency: config.workers.concurrency,
        runTimeoutMs: config.workers.runTimeoutMs,
        pollIntervalMs: config.workers.pollIntervalMs,
        approvalRemindAt: config.approvals.remindAt,
        ...(linkSecret === '' ? {} : { approvalLink: (link) => approvalUrl(publicUrl, linkSecret, link) }),
        ...(config.proxy === undefined ? {} : { proxyFetch: createProxyFetch(config.proxy.url), proxyUrl: config.proxy.url }),
        ...(config.prices === undefined ? {} : { prices: config.prices }),
      });
    pool = makePool(agent);
    dispatcher = new Dispatcher({
      store,
      channels: channels.users,
      logger,
      pollIntervalMs: config.workers.pollIntervalMs,
      delivery: config.delivery,
    });
    await pool.start();
    await dispatcher.start();
    // Always: model usage is kept 400 days even with no retention configured (retention.usageMs); hourly is enough for that alone.
    const retains = config.engine.retention !== undefined && Object.keys(config.engine.retention).length > 0;
    pruner = new Pruner({ store, logger, ...(retains ? {} : { everyMs: 3_600_000 }) });
    pruner.start();
    announce(logger, config, server.url, {
      agent: agent.name,
      refundsFile,
      channels: channels.users.map((c) => c.name),
      operatorChannels: channels.operator.map((c) => c.name),
    });
  } catch (error) {
    await pruner?.stop();
    await pool?.stop({ graceMs: 0 }).catch(() => undefined);
    await dispatcher?.stop({ graceMs: 0 }).catch(() => undefined);
    await server?.close().catch(() => undefined);
    // A dispatcher that was made closed the users' channels when it stopped.
    await Promise.allSettled((dispatcher === undefined ? allChannels : channels.operator).map(async (c) => c.close?.()));
    stopLogging();
    stopSdkWarnings();
    await store.close();
    throw error;
  }

  const running = { server, pool, dispatcher, agent, makePool: makePool! };
  let stopping: Promise<void> | undefined;
  // Swaps run one after another; stop() waits for the one in progress.
  let swaps: Promise<void> = Promise.resolve();
  const replaceAgent = (next: Agent): Promise<void> => {
    const swap = swaps.then(async () => {
      if (stopping !== undefined) throw new VigilError('store_closed', 'the service is stopping: the agent was not replaced');
      // A run is bounded by runTimeoutMs: waiting that long lets every run in hand
      // end on its own, with the agent it started with, never cut off by the swap.
      await running.pool.stop({ graceMs: config.workers.runTimeoutMs + 1_000 });
      running.pool = running.makePool(next);
      running.agent = next;
      if (stopping === undefined) await running.pool.start();
      logger.info({ agent: next.name }, 'agent replaced: new runs use it');
    });
    swaps = swap.catch(() => undefined);
    return swap;
  };
  const stop = (graceMs = config.workers.shutdownGraceMs): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ graceMs }, 'stopping: no new runs; running ones may finish');
      await swaps;
      await pruner?.stop();
      // The server keeps taking webhooks while runs drain: an acked event is
      // durable and the next start runs it, so refusing would only make senders retry.
      await running.pool.stop({ graceMs });
      // The dispatcher closes the users' channels; the operator's are closed here.
      await Promise.all([running.dispatcher.stop({ graceMs: Math.min(graceMs, RUNTIME_DEFAULTS.dispatcherGraceMs) }), running.server.close()]);
      await Promise.allSettled(channels.operator.map(async (c) => c.close?.()));
      stopLogging();
      stopSdkWarnings();
      await store.close();
      logger.info('stopped');
    })();
    return stopping;
  };

  return {
    url: server.url,
    store,
    events,
    metrics,
    logger,
    get agent() {
      return running.agent;
    },
    refundsFile,
    operator: new OperatorMessages(channels.operator, events),
    replaceAgent,
    stop,
  };
}

/** The HTTP app as the service serves it: the HTTP layer's routes, with the dashboard mounted beside them. */
export function createServiceApp(deps: AppDeps): HttpApp {
  const ctx = createHttpContext(deps);
  return createApp(ctx, { pages: [dashboardRoutes(ctx)] });
}

/** What the HTTP app takes from the config. */
export function httpDepsOf(config: ServiceConfig): Pick<AppDeps, 'sources' | 'token' | 'linkSecret' | 'maxBodyBytes' | 'limits' | 'channels'> {
  return {
    sources: config.sources,
    token: config.token,
    linkSecret: config.linkSecret,
    maxBodyBytes: config.maxBodyBytes,
    limits: config.limits,
    channels: usersChannels(config.channels).map((spec) => spec.name),
  };
}

/** The startup line people read: where to send webhooks and where to look. */
function announce(
  logger: Logger,
  config: ServiceConfig,
  url: string,
  info: { agent: string; refundsFile: string | null; channels: string[]; operatorChannels: string[] },
): void {
  const hooks = Object.entries(config.sources).flatMap(([name, source]) => [
    `POST ${url}/hooks/<inbox>/${name} (${source.type}${typeof source.secret === 'string' ? '' : `, a secret per inbox: vigil secret <inbox> ${name}`})`,
    ...(source.inbox === undefined ? [] : [`POST ${url}/hooks/${name} (${source.type}, inbox = ${JSON.stringify(source.inbox.prefix)} + ${source.inbox.from})`]),
  ]);
  logger.info(
    {
      url,
      // Never the password: a log is read by more people than the config is.
      store: redactStoreUrl(config.store),
      dashboard: config.token === undefined ? 'disabled (no token)' : `${url}/`,
      agent: info.agent,
      channels: info.channels,
      ...(info.operatorChannels.length === 0 ? {} : { operatorChannels: info.operatorChannels }),
      webhooks: hooks,
      api: config.token === undefined ? 'disabled (no token)' : [`POST ${url}/inboxes/<inbox>/messages`, `POST ${url}/inboxes/<inbox>/approvals/<id>`],
      approvalLinks: config.linkSecret === '' ? 'disabled (no token or linkSecret)' : `${url}/a/…`,
      health: `${url}/healthz`,
      metrics: `${url}/metrics`,
      ...(info.refundsFile === null ? {} : { refundsFile: info.refundsFile }),
    },
    `vigil listening on ${url}`,
  );
  if (hooks.length === 0) logger.warn('no webhook sources configured: add "sources" to the config to receive webhooks');
}
