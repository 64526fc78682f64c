/**
 * A server for the service benchmark, run as a child process of the bench
 * (bench/service-ingest.ts forks it), so the load generator never shares its
 * event loop. Listens on 127.0.0.1 only, on a free port.
 *
 *   service-server.ts bare               node:http that answers 200 at once and does no work
 *   service-server.ts floor <secret>     node:http that reads the body, checks its HMAC-SHA256 signature,
 *                                        parses the JSON and answers 202: the least a webhook receiver does
 *   service-server.ts durable <dir> <secret>
 *                                        the floor, then each delivery stored in one SQLite file by a group
 *                                        commit (WAL, synchronous FULL): the least a durable receiver does
 *   service-server.ts vigil <dir> <secret> thread|main
 *                                        createApp + startHttpServer on a real SQLite store in <dir>
 *                                        at its defaults (WAL, synchronous FULL), one GitHub source;
 *                                        `thread`: commits on the writer thread, as `vigil serve` runs it;
 *                                        `main`: on the event loop (writerThread off, the library default)
 *
 * Talks to the parent over the IPC channel: sends {type:'ready', url}; answers
 * {type:'stats'}, and {type:'stop'} with the final stats once every request
 * in flight is answered. Exits when the parent goes away.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../src/config/load-config.js';
import { RuntimeEvents } from '../src/events.js';
import { createServiceApp, httpDepsOf } from '../src/service/service.js';
import { startHttpServer } from '../src/http/server.js';
import { openStore } from '../src/index.js';
import { createLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { observe } from '../src/observability/observe.js';
import { storedOf } from '../src/store/sqlite/ingest.js';
import { sqliteBackendOf } from '../src/store/sqlite/sqlite-store.js';
import { bareInbox, inserter } from './floors.js';
import { BENCH_INBOX, BENCH_SOURCE, type FromChild, type ServerStats, type StoreStats, type ToChild } from './service-protocol.js';

function send(message: FromChild): void {
  process.send?.(message);
}

interface Running {
  stats(): Promise<StoreStats | null>;
  /** Stops taking requests and waits for those in flight. */
  closeServer(): Promise<void>;
  /** Closes the store (after closeServer). */
  closeStore(): Promise<void>;
}

async function startBare(): Promise<{ url: string; running: Running }> {
  const body = '{"ok":true}';
  return listenPlain(
    createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
    }),
  );
}

/**
 * The floor of a webhook receiver without a store: what the server must do
 * for each delivery whatever it stores in (read the body, verify the
 * signature, parse the JSON), and nothing else.
 */
async function startFloor(secret: string): Promise<{ url: string; running: Running }> {
  return listenPlain(
    createServer((req, res) => {
      whenVerified(req, res, secret, (body) => {
        const event = JSON.parse(body.toString('utf8')) as { delivery?: string };
        answer(res, 202, JSON.stringify({ stored: true, sourceId: event.delivery ?? null }));
      });
    }),
  );
}

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
}

/** Reads the body and calls `then` with it once its HMAC-SHA256 signature checks out; answers 401 otherwise. */
function whenVerified(req: IncomingMessage, res: ServerResponse, secret: string, then: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const header = req.headers['x-hub-signature-256'];
    const given = typeof header === 'string' && header.startsWith('sha256=') ? Buffer.from(header.slice(7), 'hex') : Buffer.alloc(0);
    const expected = createHmac('sha256', secret).update(raw).digest();
    if (given.length === expected.length && timingSafeEqual(given, expected)) then(raw);
    else answer(res, 401, '{"error":"bad_signature"}');
  });
}

/**
 * The floor of a durable webhook receiver: the floor above, and then each
 * delivery stored in an inbox file with Vigil's schema, on the store's own
 * connection (WAL, synchronous FULL, and the larger checkpoint interval
 * Vigil's inbox takes under bursts: floors.ts, bareInbox), the deliveries
 * of one event-loop turn in one transaction (a group commit) and in one
 * multi-row INSERT OR IGNORE (the cheapest form: floors.ts, inserter), each
 * answered after that commit. No lease, ready index or tombstones: the
 * least a receiver that acks only what is on disk does, on the same disk.
 * Commits on the event loop: the same with the commits on a worker thread
 * measured slower here (the load generator keeps the second core busy).
 */
async function startDurableFloor(dir: string, secret: string): Promise<{ url: string; running: Running }> {
  const { db, inbox, close } = await bareInbox(dir, 'durable');
  inbox.checkpointLessOften();
  const insert = inserter(db);
  const commit = db.transaction((batch: Delivery[]): boolean[] => {
    const { changes, lastInsertRowid } = insert(
      batch.map((d) => [BENCH_SOURCE, d.id, d.payload]),
      Date.now(),
    );
    if (changes === batch.length) return batch.map(() => true);
    // Some were duplicates (never in the benchmark, which sends each delivery once): which were
    // stored, read back as Vigil's own ingest reads them.
    const events = batch.map((d) => ({ source: BENCH_SOURCE, sourceId: d.id, payloadJson: d.payload }));
    return storedOf(inbox, events, Number(lastInsertRowid) - changes);
  });
  interface Delivery {
    id: string;
    payload: string;
    res: ServerResponse;
  }
  let waiting: Delivery[] = [];
  const flush = (): void => {
    const batch = waiting;
    waiting = [];
    const stored = commit.immediate(batch);
    batch.forEach((d, i) => answer(d.res, stored[i] ? 202 : 200, JSON.stringify({ stored: stored[i] })));
  };
  const started = await listenPlain(
    createServer((req, res) => {
      whenVerified(req, res, secret, (body) => {
        const text = body.toString('utf8');
        const event = JSON.parse(text) as { delivery?: string };
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ id: String(event.delivery), payload: text, res });
      });
    }),
  );
  return { url: started.url, running: { ...started.running, closeStore: close } };
}

async function listenPlain(server: Server): Promise<{ url: string; running: Running }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    running: {
      stats: async () => null,
      closeServer: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
      closeStore: async () => undefined,
    },
  };
}

async function startVigil(dir: string, secret: string, writerThread: boolean): Promise<{ url: string; running: Running }> {
  // The store's defaults; `vigil serve` adds writerThread (src/service/service.ts).
  // Wired as startService wires them: the store reports to the event stream, which the metrics and the log hear.
  const config = parseConfig(
    {
      store: `sqlite:${dir}`,
      host: '127.0.0.1',
      port: 0,
      sources: { [BENCH_SOURCE]: { type: 'github', secret } },
      // Every delivery goes to one inbox, far past the default quotas, and no worker drains it: limits
      // no delivery reaches, so each ingest still pays for its quota check as `vigil serve`'s do.
      limits: { pendingEventsPerInbox: 2 ** 50, pendingBytesPerInbox: 2 ** 50, eventsPerMinutePerInbox: 2 ** 50 },
    },
    'bench config',
    {},
  );
  const logger = createLogger({ level: config.log.level, pretty: false });
  const metrics = createMetrics();
  const events = new RuntimeEvents();
  observe(events, { metrics, logger });
  const store = await openStore(`sqlite:${dir}`, { writerThread, events });
  const backend = sqliteBackendOf(store);
  if (backend.threaded !== writerThread) throw new Error(`the store ${writerThread ? 'has no' : 'has a'} writer thread`);
  const app = createServiceApp({ ...httpDepsOf(config), store, metrics, logger, events, publicUrl: 'http://127.0.0.1' });
  const server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    running: {
      async stats() {
        const counts = (await store.inbox(BENCH_INBOX).stats()).events;
        const db = backend.connection(BENCH_INBOX, false)?.db;
        return {
          groupCommits: backend.groupCommits().commits,
          stored: counts.pending + counts.running + counts.done + counts.dead,
          journalMode: db === undefined ? null : (db.pragma('journal_mode', { simple: true }) as string),
          synchronous: db === undefined ? null : (db.pragma('synchronous', { simple: true }) as number),
          sqlite: db === undefined ? null : (db.prepare('SELECT sqlite_version()').pluck().get() as string),
        };
      },
      closeServer: () => server.close({ forceAfterMs: 5_000 }),
      closeStore: () => store.close(),
    },
  };
}

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  // `floor <secret>`; the stores' modes: `<dir> <secret>`, and for vigil `thread|main` after them.
  const [dir, secret, commits] = args;
  if (process.send === undefined) throw new Error('service-server.ts runs as a child of the bench (IPC channel required)');
  let started: { url: string; running: Running };
  if (mode === 'bare') started = await startBare();
  else if (mode === 'floor' && args.length === 1) started = await startFloor(args[0]!);
  else if (mode === 'durable' && dir !== undefined && secret !== undefined) started = await startDurableFloor(dir, secret);
  else if (mode === 'vigil' && dir !== undefined && secret !== undefined && (commits === 'thread' || commits === 'main')) {
    started = await startVigil(dir, secret, commits === 'thread');
  } else throw new Error(`usage: service-server.ts bare | floor <secret> | durable <dir> <secret> | vigil <dir> <secret> thread|main (got ${process.argv.slice(2).join(' ')})`);
  const { running } = started;

  const stats = async (): Promise<ServerStats> => {
    const cpu = process.cpuUsage();
    let store: StoreStats | null = null;
    try {
      store = await running.stats();
    } catch (error) {
      process.stderr.write(`[service-server] stats failed: ${String(error)}\n`);
    }
    return { cpuMicros: cpu.user + cpu.system, store };
  };
  let stopping: Promise<ServerStats> | null = null;
  const stop = (): Promise<ServerStats> =>
    (stopping ??= (async () => {
      await running.closeServer();
      // A request whose client hung up after sending it all may still be on its way to a commit.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const final = await stats();
      await running.closeStore();
      return final;
    })());
  // The parent is gone (crashed, killed): nobody will ask us to stop.
  process.on('disconnect', () => {
    void stop().finally(() => process.exit(0));
  });
  process.on('message', (message: ToChild) => {
    if (message.type === 'stats') {
      void stats().then((s) => send({ type: 'stats', stats: s }));
    } else if (message.type === 'stop') {
      void stop().then(
        (final) => {
          send({ type: 'stopped', stats: final });
          process.disconnect();
        },
        (error: unknown) => {
          process.stderr.write(`[service-server] stop failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
    }
  });
  send({ type: 'ready', url: started.url });
}

main().catch((error: unknown) => {
  process.stderr.write(`[service-server] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
