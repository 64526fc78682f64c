/**
 * Webhook ingestion throughput: signed GitHub-style deliveries POSTed by
 * autocannon (in this process) to one inbox of a real Vigil HTTP server, and
 * the same requests to a bare node:http server that does no work, each
 * server in its own child process on 127.0.0.1, in one run. Rounds
 * alternate which server goes first, so load from other processes falls on
 * both alike; the ratio is taken per round, then the median.
 *
 * Every delivery has its own X-GitHub-Delivery id, which is also in its body,
 * so every body and signature differ. Afterwards the inbox file is read: each
 * delivery acked with 202 must be stored exactly once, and anything else
 * stored must be one of the few still in flight when the load stopped.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { ServerProcess } from './service-children.js';
import { BENCH_INBOX, BENCH_SOURCE, type StoreStats } from './service-protocol.js';
import { median } from './timing.js';

export interface IngestPlan {
  connections: number;
  /** One untimed run per server before the rounds (JIT, first file, page cache). */
  warmupSeconds: number;
  rounds: number;
  roundSeconds: number;
}

export type ServerKind = 'bare' | 'vigil';

export interface LoadRun {
  server: ServerKind;
  seconds: number;
  /** Every response read, whatever its status. */
  responses: number;
  /** 2xx responses per second: the figure compared. */
  perSecond: number;
  /** Latency of every response read (request written → response complete), milliseconds. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statuses: Record<string, number>;
  /** Connection errors and timeouts, as autocannon counts them. */
  errors: number;
  timeouts: number;
  /** CPU time over the run's wall time (1.0 = one core busy throughout): the server's, and the load generator's (this process). */
  serverCpu: number;
  loadCpu: number;
  /** The server's CPU time per response, µs. */
  serverCpuUsPerResponse: number;
}

export interface IngestRound {
  bare: LoadRun;
  vigil: LoadRun;
  /** Vigil's 2xx/s ÷ the bare server's, this round. */
  ratio: number;
  /** Events the Vigil server stored this round, and its write transactions (clock reads). */
  stored: number;
  commits: number;
}

export interface IngestVerification {
  /** Deliveries answered 202 {"stored":true}. */
  acked: number;
  /** Any delivery id answered 202 more than once. */
  ackedTwice: number;
  /** Rows in the inbox file, and the count the store's own stats() gave. */
  storedRows: number;
  storedViaApi: number;
  /** Acked, yet not in the file: must be 0. */
  ackedMissing: number;
  /** Stored without a 202 read by the client: requests still in flight when a run stopped. */
  storedInFlight: number;
  /** Stored, neither acked nor in flight: must be 0. */
  storedUnexplained: number;
  /** Responses other than 202 from the Vigil server (a 200 would be a duplicate). */
  otherStatuses: Record<string, number>;
  pass: boolean;
}

export interface IngestFigures {
  plan: IngestPlan;
  body: { minBytes: number; maxBytes: number; meanBytes: number };
  rounds: IngestRound[];
  warmup: { bare: LoadRun; vigil: LoadRun };
  settings: StoreStats;
  verification: IngestVerification;
}

const SECRET = 'bench-github-secret-0123456789abcdef';

interface DeliveryContext {
  id?: string;
}

/** The deliveries sent, and what came back for each (tracked for the Vigil server only). */
class Deliveries {
  readonly acked = new Set<string>();
  ackedTwice = 0;
  readonly inFlight = new Set<string>();
  readonly otherStatuses: Record<string, number> = {};
  private sent = 0;
  private bytes = 0;
  private minBytes = Infinity;
  private maxBytes = 0;

  request(path: string, track: boolean): autocannon.Request {
    return {
      method: 'POST',
      path,
      setupRequest: (request, context) => {
        const id = randomUUID();
        const n = ++this.sent;
        const body = JSON.stringify({
          action: 'opened',
          delivery: id,
          issue: { number: n, title: `Benchmark issue ${n}`, state: 'open', user: { login: 'octocat' }, labels: [] },
          repository: { id: 1296269, full_name: 'vigil-bench/hello-world', private: false },
          sender: { login: 'octocat', type: 'User' },
        });
        this.bytes += body.length;
        this.minBytes = Math.min(this.minBytes, body.length);
        this.maxBytes = Math.max(this.maxBytes, body.length);
        const signature = 'sha256=' + createHmac('sha256', SECRET).update(body).digest('hex');
        (context as DeliveryContext).id = id;
        if (track) this.inFlight.add(id);
        return { ...request, body, headers: { ...request.headers, 'x-github-delivery': id, 'x-hub-signature-256': signature } };
      },
      onResponse: (status, _body, context) => {
        if (!track) return;
        const id = (context as DeliveryContext).id;
        if (id === undefined) return;
        this.inFlight.delete(id);
        if (status === 202) {
          if (this.acked.has(id)) this.ackedTwice += 1;
          this.acked.add(id);
        } else {
          this.otherStatuses[status] = (this.otherStatuses[status] ?? 0) + 1;
        }
      },
    };
  }

  body(): IngestFigures['body'] {
    return { minBytes: this.minBytes, maxBytes: this.maxBytes, meanBytes: this.sent === 0 ? 0 : this.bytes / this.sent };
  }
}

async function load(server: ServerKind, target: ServerProcess, deliveries: Deliveries, plan: IngestPlan, seconds: number): Promise<LoadRun> {
  const url = target.url;
  const latencies: number[] = [];
  const serverBefore = await target.stats();
  const loadBefore = process.cpuUsage();
  const wallStart = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: plan.connections,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/vigil-bench', 'x-github-event': 'issues' },
        requests: [deliveries.request(`/hooks/${BENCH_INBOX}/${BENCH_SOURCE}`, server === 'vigil')],
      },
      (error: unknown, done: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      latencies.push(responseTime);
    });
  });
  const wallSeconds = (performance.now() - wallStart) / 1000;
  const loadCpu = process.cpuUsage(loadBefore);
  const serverCpuMicros = (await target.stats()).cpuMicros - serverBefore.cpuMicros;
  latencies.sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  const ok = result['2xx'];
  return {
    server,
    seconds: result.duration,
    responses: latencies.length,
    perSecond: ok / result.duration,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1] ?? Number.NaN,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    serverCpu: serverCpuMicros / 1e6 / wallSeconds,
    loadCpu: (loadCpu.user + loadCpu.system) / 1e6 / wallSeconds,
    serverCpuUsPerResponse: latencies.length === 0 ? Number.NaN : serverCpuMicros / latencies.length,
  };
}

/** Nearest rank on sorted values. */
function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export async function runIngestBench(plan: IngestPlan, scratch: string, log: (line: string) => void): Promise<IngestFigures> {
  const dir = join(scratch, 'ingest-store');
  mkdirSync(dir, { recursive: true });
  const deliveries = new Deliveries();
  const bare = await ServerProcess.start(['bare']);
  let vigil: ServerProcess | null = null;
  try {
    vigil = await ServerProcess.start(['vigil', dir, SECRET]);
    const servers: Record<ServerKind, ServerProcess> = { bare, vigil };
    log(`service: bare node:http (pid ${bare.pid}) at ${bare.url}, Vigil (pid ${vigil.pid}) at ${vigil.url}`);

    const run = async (kind: ServerKind, seconds: number): Promise<LoadRun> => {
      const result = await load(kind, servers[kind], deliveries, plan, seconds);
      log(
        `service: ${kind.padEnd(5)} ${Math.round(result.perSecond)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms` +
          ` (statuses ${JSON.stringify(result.statuses)}, errors ${result.errors};` +
          ` CPU: server ${result.serverCpu.toFixed(2)}, load generator ${result.loadCpu.toFixed(2)} cores, server ${result.serverCpuUsPerResponse.toFixed(0)} µs/response)`,
      );
      return result;
    };

    log(`service: warm-up, ${plan.warmupSeconds} s per server`);
    const warmup = { bare: await run('bare', plan.warmupSeconds), vigil: await run('vigil', plan.warmupSeconds) };

    const rounds: IngestRound[] = [];
    for (let r = 0; r < plan.rounds; r++) {
      log(`service: round ${r + 1}/${plan.rounds}, ${plan.roundSeconds} s per server, ${plan.connections} connections`);
      const order: ServerKind[] = r % 2 === 0 ? ['bare', 'vigil'] : ['vigil', 'bare'];
      const runs: Partial<Record<ServerKind, LoadRun>> = {};
      let before: StoreStats | null = null;
      let after: StoreStats | null = null;
      for (const kind of order) {
        if (kind === 'vigil') before = (await vigil.stats()).store;
        runs[kind] = await run(kind, plan.roundSeconds);
        if (kind === 'vigil') after = (await vigil.stats()).store;
      }
      const b = runs.bare as LoadRun;
      const v = runs.vigil as LoadRun;
      rounds.push({
        bare: b,
        vigil: v,
        ratio: v.perSecond / b.perSecond,
        stored: (after?.stored ?? 0) - (before?.stored ?? 0),
        commits: (after?.clockReads ?? 0) - (before?.clockReads ?? 0),
      });
    }

    // Stopping answers every request still in flight, so the count below is final.
    const settings = (await vigil.stop())?.store ?? null;
    vigil = null;
    if (settings === null) throw new Error('the Vigil server reported no store stats when it stopped');
    return { plan, body: deliveries.body(), rounds, warmup, settings, verification: verify(join(dir, `${BENCH_INBOX}.db`), deliveries, settings.stored) };
  } finally {
    await bare.stop();
    await vigil?.stop();
  }
}

/** Reads the inbox file (the server has exited) and holds every 202 to exactly one stored row. */
function verify(file: string, deliveries: Deliveries, storedViaApi: number): IngestVerification {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  let rows: string[];
  try {
    rows = db.prepare('SELECT source_id FROM events WHERE source = ?').pluck().all(BENCH_SOURCE) as string[];
  } finally {
    db.close();
  }
  const stored = new Set(rows);
  let ackedMissing = 0;
  for (const id of deliveries.acked) if (!stored.has(id)) ackedMissing += 1;
  let storedInFlight = 0;
  let storedUnexplained = 0;
  for (const id of stored) {
    if (deliveries.acked.has(id)) continue;
    if (deliveries.inFlight.has(id)) storedInFlight += 1;
    else storedUnexplained += 1;
  }
  const duplicateRows = rows.length - stored.size;
  const pass =
    ackedMissing === 0 &&
    storedUnexplained === 0 &&
    duplicateRows === 0 &&
    deliveries.ackedTwice === 0 &&
    storedViaApi === rows.length &&
    Object.keys(deliveries.otherStatuses).length === 0;
  return {
    acked: deliveries.acked.size,
    ackedTwice: deliveries.ackedTwice + duplicateRows,
    storedRows: rows.length,
    storedViaApi,
    ackedMissing,
    storedInFlight,
    storedUnexplained,
    otherStatuses: { ...deliveries.otherStatuses },
    pass,
  };
}

/** Medians over the rounds, for the report. */
export function ingestSummary(figures: IngestFigures): {
  bare: { perSecond: number; p50Ms: number; p99Ms: number };
  vigil: { perSecond: number; p50Ms: number; p99Ms: number };
  ratio: number;
  eventsPerCommit: number | null;
} {
  const pick = (kind: ServerKind) => ({
    perSecond: median(figures.rounds.map((r) => r[kind].perSecond)),
    p50Ms: median(figures.rounds.map((r) => r[kind].p50Ms)),
    p99Ms: median(figures.rounds.map((r) => r[kind].p99Ms)),
  });
  const commits = figures.rounds.reduce((sum, r) => sum + r.commits, 0);
  const stored = figures.rounds.reduce((sum, r) => sum + r.stored, 0);
  return {
    bare: pick('bare'),
    vigil: pick('vigil'),
    ratio: median(figures.rounds.map((r) => r.ratio)),
    eventsPerCommit: commits === 0 ? null : stored / commits,
  };
}
