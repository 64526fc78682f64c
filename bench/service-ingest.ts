/**
 * Webhook ingestion throughput: signed GitHub-style deliveries POSTed by
 * autocannon (in this process) to one inbox of a real Vigil HTTP server, and
 * the same requests to a bare node:http server that does no work, each
 * server in its own child process on 127.0.0.1, in one run. Three more
 * servers put the ratio in context: the floor (node:http that verifies the
 * signature and parses the JSON, and stores nothing), the durable floor (the
 * floor, then a group commit of the deliveries to one SQLite file at WAL +
 * FULL, each answered after it: the least any receiver that acks only what
 * is on disk does) and Vigil with its commits on the event loop
 * (writerThread off). Each round rotates which
 * server goes first, so load from other processes falls on all alike; the
 * ratio is taken per round, then the median.
 *
 * Every delivery has its own X-GitHub-Delivery id, which is also in its body,
 * so every body and signature differ. Afterwards the inbox file is read: each
 * delivery acked with 202 must be stored exactly once, and anything else
 * stored must be one of the few still in flight when the load stopped.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { probeDuring } from './health-probe.js';
import { ServerProcess } from './service-children.js';
import { BENCH_INBOX, BENCH_SOURCE, type StoreStats } from './service-protocol.js';
import { median } from './timing.js';

export interface IngestPlan {
  connections: number;
  /** One untimed run per server before the rounds (JIT, first file, page cache). */
  warmupSeconds: number;
  rounds: number;
  /** Each server's load in a round, in all. */
  roundSeconds: number;
  /**
   * A round runs each server this many times for roundSeconds ÷ slices, the
   * servers in turn, forwards then backwards: a slow spell of the machine
   * (another VM's load, seconds long) then falls on every server of the
   * round alike instead of on whichever ran during it.
   */
  slices: number;
  /**
   * After the rounds, each Vigil server's load for this long in all (two
   * turns, forwards then backwards) while GET /healthz is probed: what its
   * other routes feel meanwhile. Not part of any ratio.
   */
  probeSeconds: number;
}

/**
 * `vigil`: as `vigil serve` runs it (writer thread); `vigilMain`: commits on the event loop; `floor`: verify + parse,
 * no store; `durable`: the floor and a group commit to one SQLite file.
 */
export type ServerKind = 'bare' | 'floor' | 'durable' | 'vigil' | 'vigilMain';
export const SERVER_KINDS: readonly ServerKind[] = ['bare', 'floor', 'durable', 'vigil', 'vigilMain'];
export type VigilKind = 'vigil' | 'vigilMain';
const VIGIL_KINDS: readonly VigilKind[] = ['vigil', 'vigilMain'];

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
  /** The server's event-loop thread alone; the rest of serverCpu is its other threads (the writer thread, libuv, GC). */
  serverMainCpu: number;
  loadCpu: number;
  /** The server's CPU time per response, µs. */
  serverCpuUsPerResponse: number;
}

export interface IngestRound {
  runs: Record<ServerKind, LoadRun>;
  /** Which went first, second, ... in the round's first slice (the next slice runs them backwards). */
  order: ServerKind[];
  /** Vigil's 2xx/s ÷ the bare server's, this round. */
  ratio: number;
  /** Events each Vigil server stored this round, and its group commits (one write transaction each). */
  stored: Record<VigilKind, number>;
  commits: Record<VigilKind, number>;
}

/** GET /healthz probed during a Vigil server's load (health-probe.ts): the load's own rate, and the probes' times. */
export interface HealthUnderLoad {
  perSecond: number;
  probes: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
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
  warmup: Record<ServerKind, LoadRun>;
  health: Record<VigilKind, HealthUnderLoad>;
  settings: StoreStats;
  verification: Record<VigilKind, IngestVerification>;
}

const SECRET = 'bench-github-secret-0123456789abcdef';

interface DeliveryContext {
  id?: string;
}

/** The deliveries sent to one server, and what came back for each (tracked for the Vigil servers only). */
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

/** One timed run of one server: what a LoadRun is made of. */
interface LoadSample {
  seconds: number;
  wallSeconds: number;
  ok: number;
  latencies: number[];
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  serverCpuMicros: number;
  serverMainMicros: number;
  loadCpuMicros: number;
}

async function load(server: ServerKind, target: ServerProcess, deliveries: Deliveries, plan: IngestPlan, seconds: number): Promise<LoadSample> {
  const url = target.url;
  const latencies: number[] = [];
  const serverBefore = await target.stats();
  const mainBefore = mainThreadCpuMicros(target.pid);
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
        requests: [deliveries.request(`/hooks/${BENCH_INBOX}/${BENCH_SOURCE}`, server === 'vigil' || server === 'vigilMain')],
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
  const serverMainMicros = mainThreadCpuMicros(target.pid) - mainBefore;
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  return {
    seconds: result.duration,
    wallSeconds,
    ok: result['2xx'],
    latencies,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    serverCpuMicros,
    serverMainMicros,
    loadCpuMicros: loadCpu.user + loadCpu.system,
  };
}

/** The responses of several runs by status code, added up. */
export function addStatuses(runs: readonly { statuses: Record<string, number> }[]): Record<string, number> {
  const statuses: Record<string, number> = {};
  for (const run of runs) for (const [code, count] of Object.entries(run.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
  return statuses;
}

/** A server's slices of one round (or its one warm-up run) as one run: counts and CPU added up, latencies together. */
function combine(server: ServerKind, samples: LoadSample[]): LoadRun {
  const sum = (f: (s: LoadSample) => number): number => samples.reduce((total, s) => total + f(s), 0);
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const statuses = addStatuses(samples);
  const seconds = sum((s) => s.seconds);
  const wallSeconds = sum((s) => s.wallSeconds);
  const serverCpuMicros = sum((s) => s.serverCpuMicros);
  return {
    server,
    seconds,
    responses: latencies.length,
    perSecond: sum((s) => s.ok) / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1] ?? Number.NaN,
    statuses,
    errors: sum((s) => s.errors),
    timeouts: sum((s) => s.timeouts),
    serverCpu: serverCpuMicros / 1e6 / wallSeconds,
    serverMainCpu: sum((s) => s.serverMainMicros) / 1e6 / wallSeconds,
    loadCpu: sum((s) => s.loadCpuMicros) / 1e6 / wallSeconds,
    serverCpuUsPerResponse: latencies.length === 0 ? Number.NaN : serverCpuMicros / latencies.length,
  };
}

/**
 * CPU time of a process's main thread (its event loop), from
 * /proc/<pid>/task/<pid>/stat (utime + stime, in clock ticks of 10 ms):
 * process.cpuUsage() counts every thread, and Node 20 has no per-thread figure.
 * NaN where there is no /proc.
 */
function mainThreadCpuMicros(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / CLOCK_TICKS_PER_SECOND);
  } catch {
    return Number.NaN;
  }
}
/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Nearest rank on sorted values. */
function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export async function runIngestBench(plan: IngestPlan, scratch: string, log: (line: string) => void): Promise<IngestFigures> {
  const dirs: Record<VigilKind | 'durable', string> = {
    durable: join(scratch, 'ingest-durable-floor'),
    vigil: join(scratch, 'ingest-thread'),
    vigilMain: join(scratch, 'ingest-main'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const deliveries = Object.fromEntries(SERVER_KINDS.map((kind) => [kind, new Deliveries()])) as Record<ServerKind, Deliveries>;
  const args: Record<ServerKind, string[]> = {
    bare: ['bare'],
    floor: ['floor', SECRET],
    durable: ['durable', dirs.durable, SECRET],
    vigil: ['vigil', dirs.vigil, SECRET, 'thread'],
    vigilMain: ['vigil', dirs.vigilMain, SECRET, 'main'],
  };
  const servers: Partial<Record<ServerKind, ServerProcess>> = {};
  try {
    for (const kind of SERVER_KINDS) servers[kind] = await ServerProcess.start(args[kind]);
    log(`service: ${SERVER_KINDS.map((kind) => `${kind} (pid ${servers[kind]!.pid}) at ${servers[kind]!.url}`).join(', ')}`);

    const describe = (result: LoadRun, label: string): void =>
      log(
        `service: ${result.server.padEnd(9)} ${Math.round(result.perSecond)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms` +
          ` (statuses ${JSON.stringify(result.statuses)}, errors ${result.errors};` +
          ` CPU: server ${result.serverCpu.toFixed(2)} (event loop ${result.serverMainCpu.toFixed(2)}), load generator ${result.loadCpu.toFixed(2)} cores,` +
          ` server ${result.serverCpuUsPerResponse.toFixed(0)} µs/response${label})`,
      );
    const sample = (kind: ServerKind, seconds: number): Promise<LoadSample> => load(kind, servers[kind]!, deliveries[kind], plan, seconds);

    log(`service: warm-up, ${plan.warmupSeconds} s per server`);
    const warmup = {} as Record<ServerKind, LoadRun>;
    for (const kind of SERVER_KINDS) {
      warmup[kind] = combine(kind, [await sample(kind, plan.warmupSeconds)]);
      describe(warmup[kind], '');
    }

    const sliceSeconds = plan.roundSeconds / plan.slices;
    const rounds: IngestRound[] = [];
    for (let r = 0; r < plan.rounds; r++) {
      log(`service: round ${r + 1}/${plan.rounds}, ${plan.roundSeconds} s per server in ${plan.slices} slices of ${sliceSeconds} s, ${plan.connections} connections`);
      // Each round starts with another server; its slices run the servers forwards, then backwards, in turn.
      const order = SERVER_KINDS.map((_, i) => SERVER_KINDS[(i + r) % SERVER_KINDS.length] as ServerKind);
      const before = { vigil: (await servers.vigil!.stats()).store, vigilMain: (await servers.vigilMain!.stats()).store };
      const samples = Object.fromEntries(SERVER_KINDS.map((kind) => [kind, [] as LoadSample[]])) as Record<ServerKind, LoadSample[]>;
      for (let slice = 0; slice < plan.slices; slice++) {
        for (const kind of slice % 2 === 0 ? order : [...order].reverse()) samples[kind].push(await sample(kind, sliceSeconds));
      }
      const runs = {} as Record<ServerKind, LoadRun>;
      for (const kind of order) {
        runs[kind] = combine(kind, samples[kind]);
        describe(runs[kind], `, ${plan.slices} slices`);
      }
      const stored = { vigil: 0, vigilMain: 0 };
      const commits = { vigil: 0, vigilMain: 0 };
      for (const kind of VIGIL_KINDS) {
        const after = (await servers[kind]!.stats()).store;
        stored[kind] = (after?.stored ?? 0) - (before[kind]?.stored ?? 0);
        commits[kind] = (after?.groupCommits ?? 0) - (before[kind]?.groupCommits ?? 0);
      }
      rounds.push({ runs, order, ratio: runs.vigil.perSecond / runs.bare.perSecond, stored, commits });
    }

    const health = await healthUnderLoad(plan, (kind) => `${servers[kind]!.url}/healthz`, (kind, seconds) => sample(kind, seconds), log);

    // Stopping answers every request still in flight, so the counts below are final.
    const verification = {} as Record<VigilKind, IngestVerification>;
    let settings: StoreStats | null = null;
    for (const kind of VIGIL_KINDS) {
      const final = (await servers[kind]!.stop())?.store ?? null;
      delete servers[kind];
      if (final === null) throw new Error(`the ${kind} server reported no store stats when it stopped`);
      if (kind === 'vigil') settings = final;
      verification[kind] = verify(join(dirs[kind], `${BENCH_INBOX}.db`), deliveries[kind], final.stored);
    }
    return { plan, body: deliveries.vigil.body(), rounds, warmup, health, settings: settings!, verification };
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
}

/** Pause between two health probes: ~50 a second against the load's thousands. */
export const PROBE_PAUSE_MS = 20;

/** Each Vigil server's load again, in two turns (forwards, then backwards), with /healthz probed throughout. */
async function healthUnderLoad(
  plan: IngestPlan,
  healthUrl: (kind: VigilKind) => string,
  sample: (kind: VigilKind, seconds: number) => Promise<LoadSample>,
  log: (line: string) => void,
): Promise<Record<VigilKind, HealthUnderLoad>> {
  log(`service: /healthz probed every ${PROBE_PAUSE_MS} ms during ${plan.probeSeconds} s of load per Vigil server`);
  const loads = { vigil: [] as LoadSample[], vigilMain: [] as LoadSample[] };
  const probes = { vigil: [] as number[], vigilMain: [] as number[] };
  for (const kind of [...VIGIL_KINDS, ...[...VIGIL_KINDS].reverse()]) {
    const { value, latenciesMs } = await probeDuring(healthUrl(kind), PROBE_PAUSE_MS, () => sample(kind, plan.probeSeconds / 2));
    loads[kind].push(value);
    probes[kind].push(...latenciesMs);
  }
  const health = {} as Record<VigilKind, HealthUnderLoad>;
  for (const kind of VIGIL_KINDS) {
    const sorted = probes[kind].sort((a, b) => a - b);
    const ok = loads[kind].reduce((sum, s) => sum + s.ok, 0);
    const seconds = loads[kind].reduce((sum, s) => sum + s.seconds, 0);
    health[kind] = {
      perSecond: ok / seconds,
      probes: sorted.length,
      p50Ms: percentile(sorted, 0.5),
      p90Ms: percentile(sorted, 0.9),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    };
    const h = health[kind];
    log(`service: ${kind.padEnd(9)} ${Math.round(h.perSecond)} req/s; /healthz ×${h.probes}: p50 ${h.p50Ms.toFixed(2)}, p90 ${h.p90Ms.toFixed(2)}, p99 ${h.p99Ms.toFixed(2)}, max ${h.maxMs.toFixed(2)} ms`);
  }
  return health;
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
  servers: Record<ServerKind, { perSecond: number; p50Ms: number; p99Ms: number }>;
  /** Vigil ÷ bare: the target's ratio. */
  ratio: number;
  /** Each server ÷ bare, and Vigil ÷ each floor: medians of the per-round ratios. */
  ratios: Record<ServerKind, number>;
  vigilOverFloor: number;
  vigilOverDurable: number;
  eventsPerCommit: Record<VigilKind, number | null>;
} {
  const pick = (kind: ServerKind) => ({
    perSecond: median(figures.rounds.map((r) => r.runs[kind].perSecond)),
    p50Ms: median(figures.rounds.map((r) => r.runs[kind].p50Ms)),
    p99Ms: median(figures.rounds.map((r) => r.runs[kind].p99Ms)),
  });
  const perCommit = (kind: VigilKind): number | null => {
    const commits = figures.rounds.reduce((sum, r) => sum + r.commits[kind], 0);
    const stored = figures.rounds.reduce((sum, r) => sum + r.stored[kind], 0);
    return commits === 0 ? null : stored / commits;
  };
  const over = (kind: ServerKind, base: ServerKind): number => median(figures.rounds.map((r) => r.runs[kind].perSecond / r.runs[base].perSecond));
  return {
    servers: Object.fromEntries(SERVER_KINDS.map((kind) => [kind, pick(kind)])) as Record<ServerKind, ReturnType<typeof pick>>,
    ratio: median(figures.rounds.map((r) => r.ratio)),
    ratios: Object.fromEntries(SERVER_KINDS.map((kind) => [kind, over(kind, 'bare')])) as Record<ServerKind, number>,
    vigilOverFloor: over('vigil', 'floor'),
    vigilOverDurable: over('vigil', 'durable'),
    eventsPerCommit: { vigil: perCommit('vigil'), vigilMain: perCommit('vigilMain') },
  };
}
