/**
 * `vigil serve` as a function: the store, the HTTP app and server, the
 * worker pool and the dispatcher, wired to one metrics registry, one logger
 * and one runtime event stream. Everything it starts, `stop()` stops, in
 * the order that loses nothing: stop taking work, let runs finish, release
 * leases, then close the server, the channels and the store.
 */
import { Hono } from 'hono';
import type { Agent } from '../agent/agent.js';
import { routeClaudeSdkWarnings } from '../agent/claude/sdk-warnings.js';
import { createChannels } from '../channels/create-channels.js';
import type { ServiceConfig } from '../config/schema.js';
import { resolveLongSecret, resolveOptionalSecret, resolveSecret } from '../config/secrets.js';
import { approvalUrl } from '../http/approval-links.js';
import { createApp } from '../http/app.js';
import { startHttpServer } from '../http/server.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { observe } from '../observability/observe.js';
import { Dispatcher } from '../runtime/dispatcher.js';
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
  /** Where "env:VAR" secrets are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where the console channel prints (default stdout). */
  stdout?: NodeJS.WritableStream;
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
  /** The example agent's refunds ledger (null with a user's agent). */
  refundsFile: string | null;
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

export async function startService(config: ServiceConfig, options: ServiceOptions = {}): Promise<Service> {
  const env = options.env ?? process.env;
  const logger = options.logger ?? createLogger({ level: config.log.level });
  const metrics = createMetrics();
  const events = new RuntimeEvents((error, name) => logger.error({ err: error, event: name }, 'a listener of %s threw; the operation it reports stands', name));

  // Everything that can fail on a bad config fails here, before the store opens or a port is taken.
  const linkSecretSetting = config.linkSecret ?? config.token;
  const linkSecret = linkSecretSetting === undefined ? '' : resolveLongSecret(linkSecretSetting, env, config.linkSecret === undefined ? 'token' : 'linkSecret');
  const channelsConfig = resolveChannelSecrets(config, env);
  const { agent, refundsFile } = await loadAgent(config.agent, config.store);
  const channels = createChannels(channelsConfig, options.stdout === undefined ? {} : { stdout: options.stdout });

  const store = await openStore(config.store, { ...config.engine, events });
  const stopLogging = observe(events, { metrics, logger });
  const stopSdkWarnings = routeClaudeSdkWarnings(logger);
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  let pool: WorkerPool | undefined;
  let makePool: ((agent: Agent) => WorkerPool) | undefined;
  let dispatcher: Dispatcher | undefined;
  let pruner: Pruner | undefined;
  try {
    // With port 0 the address is known only once listening; the approval
    // links need it, so the app is mounted behind a shim set right after.
    let publicUrl = config.publicUrl ?? `http://${config.host}:${config.port}`;
    const deps = { store, config, metrics, logger, events, linkSecret, env, ...(agent.route === undefined ? {} : { route: agent.route }) };
    let app: Hono | undefined;
    if (config.port === 0 && config.publicUrl === undefined) {
      const shim = new Hono();
      shim.all('*', (c) => (app === undefined ? c.json({ error: { code: 'starting', message: 'starting up' } }, 503) : app.fetch(c.req.raw, c.env)));
      server = await startHttpServer(shim, { host: config.host, port: config.port });
      publicUrl = server.url;
      app = createApp({ ...deps, publicUrl });
    } else {
      app = createApp({ ...deps, publicUrl });
      server = await startHttpServer(app, { host: config.host, port: config.port });
    }

    const linkBase = publicUrl;
    makePool = (runs: Agent): WorkerPool =>
      new WorkerPool({
        store,
        agent: runs,
        logger,
        concurrency: config.workers.concurrency,
        runTimeoutMs: config.workers.runTimeoutMs,
        pollIntervalMs: config.workers.pollIntervalMs,
        ...(linkSecret === '' ? {} : { approvalLink: (link) => approvalUrl(linkBase, linkSecret, link) }),
        ...(config.proxy === undefined ? {} : { proxyFetch: createProxyFetch(config.proxy.url) }),
      });
    pool = makePool(agent);
    dispatcher = new Dispatcher({
      store,
      channels,
      logger,
      pollIntervalMs: config.workers.pollIntervalMs,
      delivery: config.delivery,
    });
    await pool.start();
    await dispatcher.start();
    if (config.engine.retention !== undefined && Object.keys(config.engine.retention).length > 0) {
      pruner = new Pruner({ store, logger });
      pruner.start();
    }
    announce(logger, config, server.url, { agent: agent.name, refundsFile, linkSecret, channels: channels.map((c) => c.name) });
  } catch (error) {
    await pruner?.stop();
    await pool?.stop({ graceMs: 0 }).catch(() => undefined);
    await dispatcher?.stop({ graceMs: 0 }).catch(() => undefined);
    if (dispatcher === undefined) await Promise.allSettled(channels.map(async (c) => c.close?.()));
    await server?.close().catch(() => undefined);
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
      await Promise.all([running.dispatcher.stop({ graceMs: Math.min(graceMs, 5_000) }), running.server.close()]);
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
    replaceAgent,
    stop,
  };
}

/** Channel secrets may be "env:VAR" like every other secret; the channels get them resolved. */
function resolveChannelSecrets(config: ServiceConfig, env: NodeJS.ProcessEnv): ServiceConfig['channels'] {
  const channels = { ...config.channels };
  if (channels.webhook !== undefined) channels.webhook = { ...channels.webhook, secret: resolveLongSecret(channels.webhook.secret, env, 'channels.webhook.secret') };
  if (channels.email !== undefined) {
    channels.email = { ...channels.email, password: resolveOptionalSecret(channels.email.password, env, 'channels.email.password') };
  }
  if (channels.slack?.botToken !== undefined) channels.slack = { ...channels.slack, botToken: resolveSecret(channels.slack.botToken, env, 'channels.slack.botToken') };
  return channels;
}

/** The startup line people read: where to send webhooks and where to look. */
function announce(
  logger: Logger,
  config: ServiceConfig,
  url: string,
  info: { agent: string; refundsFile: string | null; linkSecret: string; channels: string[] },
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
      webhooks: hooks,
      api: config.token === undefined ? 'disabled (no token)' : [`POST ${url}/inboxes/<inbox>/messages`, `POST ${url}/inboxes/<inbox>/approvals/<id>`],
      approvalLinks: info.linkSecret === '' ? 'disabled (no token or linkSecret)' : `${url}/a/…`,
      health: `${url}/healthz`,
      metrics: `${url}/metrics`,
      ...(info.refundsFile === null ? {} : { refundsFile: info.refundsFile }),
    },
    `vigil listening on ${url}`,
  );
  if (hooks.length === 0) logger.warn('no webhook sources configured: add "sources" to the config to receive webhooks');
}
