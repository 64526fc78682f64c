/**
 * The app under test on a real SQLite store in a temp directory, with one
 * fake clock shared by the store and the app (replay windows, link expiry),
 * wired as the service wires it (its config resolved, the dashboard
 * mounted). `t.request` goes over a real socket to a server started for
 * the test (the only way to the webhook route, which is served from Node's
 * request); `t.app.hono.request` calls the other routes without one.
 * Logs are captured so a test can see what an operator would.
 */
import { Writable } from 'node:stream';
import { afterEach, expect } from 'vitest';
import { parseConfig } from '../../src/config/load-config.js';
import type { ServiceConfigInput } from '../../src/config/schema.js';
import type { AppDeps, HttpApp } from '../../src/http/app.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { createServiceApp, httpDepsOf } from '../../src/service/service.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import type { RuntimeEvents } from '../../src/events.js';
import { observe } from '../../src/observability/observe.js';
import type { FakeClock, Store } from '../../src/index.js';
import { T0, useTempStores } from '../sqlite/temp-dirs.js';

export { T0 };

export const SECRETS = {
  github: 'github-webhook-secret-for-tests-0001',
  stripe: 'whsec_stripe_test_secret_0123456789ab',
  standard: 'whsec_' + Buffer.from('standard-webhooks-test-key-32-by').toString('base64'),
  slack: 'slack-signing-secret-for-tests-0001',
  hmac: 'hmac-webhook-secret-for-tests-00001',
  token: 'api-token-for-tests-0123456789abcdef',
  link: 'link-secret-for-tests-0123456789abc',
};

/** One source of each type; tests add or replace through `config`. */
export const SOURCES: ServiceConfigInput['sources'] = {
  github: { type: 'github', secret: SECRETS.github },
  stripe: { type: 'stripe', secret: SECRETS.stripe, toleranceSeconds: 300 },
  standard: { type: 'standard-webhooks', secret: SECRETS.standard, toleranceSeconds: 300 },
  slack: { type: 'slack', secret: SECRETS.slack, toleranceSeconds: 300 },
  acme: { type: 'hmac', secret: SECRETS.hmac, signatureHeader: 'x-acme-signature', keyHeader: 'x-acme-delivery' },
};

export interface TestApp {
  app: HttpApp;
  /** A request over a real socket to this app (a server started on first use, closed after the test); redirects are not followed. */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  store: Store;
  /** The SQLite store's directory ('' on another store). */
  dir: string;
  clock: FakeClock;
  metrics: Metrics;
  events: RuntimeEvents;
  /** Parsed JSON log lines written so far. */
  logs(): Array<Record<string, unknown>>;
}

/** Another store for the same app tests (e.g. PostgreSQL): a fresh one per call, closed by `close`. */
export type StoreOpener = () => Promise<{ store: Store; clock: FakeClock; close(): Promise<void> }>;

/** Apps on a fresh SQLite store each (the default), or on what `open` gives. */
export function useHttpApps(open?: StoreOpener) {
  const temp = useTempStores();
  const opened: Array<() => Promise<void>> = [];
  const servers: HttpServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close({ forceAfterMs: 0 })));
    await Promise.all(opened.splice(0).map((close) => close()));
  });
  const openStore = async (): Promise<{ store: Store; clock: FakeClock; dir: string }> => {
    if (open === undefined) {
      const dir = temp.dir();
      return { ...(await temp.open(dir)), dir };
    }
    const { store, clock, close } = await open();
    opened.push(close);
    return { store, clock, dir: '' };
  };
  return {
    /** `env` is where the config's "env:NAME" secrets are read (default: none). */
    async make(config: Partial<ServiceConfigInput> = {}, deps: Partial<AppDeps> & { env?: NodeJS.ProcessEnv } = {}): Promise<TestApp> {
      const { env = {}, ...overrides } = deps;
      const { store, clock, dir } = await openStore();
      const lines: string[] = [];
      const destination = new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
          done();
        },
      });
      const metrics = createMetrics({ defaultMetrics: false });
      const logger = createLogger({ level: 'info', destination });
      // As the service wires them (service.ts): the store's events, observed and logged.
      const events = store.events;
      events.onListenerError = (error, name) => logger.error({ err: error, event: name }, 'a listener of %s threw; the operation it reports stands', name);
      observe(events, { metrics, logger });
      const resolved = parseConfig({ sources: SOURCES, token: SECRETS.token, linkSecret: SECRETS.link, ...config }, 'test config', env);
      const app = createServiceApp({
        ...httpDepsOf(resolved),
        store,
        metrics,
        logger,
        events,
        publicUrl: 'http://127.0.0.1:8787',
        now: clock.now,
        ...overrides,
      });
      let server: Promise<HttpServer> | undefined;
      const request = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
        server ??= startHttpServer(app, { host: '127.0.0.1', port: 0 }).then((started) => {
          servers.push(started);
          return started;
        });
        const { url } = await server;
        const target = (href: string): string => {
          const parsed = new URL(href, 'http://127.0.0.1:8787');
          return `${url}${parsed.pathname}${parsed.search}`;
        };
        if (input instanceof Request) return fetch(new Request(target(input.url), input), { redirect: 'manual', ...init });
        return fetch(target(String(input)), { redirect: 'manual', ...init });
      };
      return { app, request, store, dir, clock, metrics, events, logs: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
    },
  };
}

/** Nothing at all was written: no inbox file exists. */
export async function expectNothingStored(store: Store): Promise<void> {
  expect(await store.inboxes()).toEqual([]);
}

export async function eventCount(store: Store, inboxId: string): Promise<number> {
  return (await store.inbox(inboxId).events()).length;
}

export async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: body.error.code, message: body.error.message };
}

/** The value of one counter series, 0 when it was never incremented. */
export async function counterValue(metrics: Metrics, name: keyof Metrics, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics[name] as { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> };
  const { values } = await metric.get();
  const match = values.find((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value));
  return match?.value ?? 0;
}
