/**
 * A webhook sender with a fixed number of keep-alive connections, as a
 * provider's delivery fleet is: each connection sends one delivery at a
 * time, signed at the moment it is sent. What came back for each delivery
 * is kept (every status and error code), with the latency of every answer.
 *
 * A delivery whose connection fails (the server was killed with it in
 * flight, or refused the connection) is queued to be sent again, up to
 * `maxAttempts` times, as a provider retries; `pause()` holds every
 * connection before its next request until `resume(url)` points them at
 * the restarted server.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { signDelivery, type Delivery } from './deliveries.js';

export interface Outcome {
  /** Every HTTP status received for this delivery, in order. */
  statuses: number[];
  /** The `error.code` of each non-2xx answer. */
  codes: string[];
  /** Attempts that ended without an HTTP answer (connection reset, refused, timed out). */
  connectionErrors: string[];
}

export interface LoadSummary {
  responses: number;
  connectionErrors: number;
  /** Connection errors by code (ECONNRESET, ETIMEDOUT, ...). */
  connectionErrorCodes: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  statuses: Record<string, number>;
}


export class LoadClient {
  readonly outcomes: Outcome[];
  private readonly latencies: number[] = [];
  private readonly retries: Delivery[] = [];
  private next = 0;
  private inFlight = 0;
  private responses = 0;
  private gate: { promise: Promise<void>; open: () => void } | null = null;
  private waiters: (() => void)[] = [];
  private readonly agent: Agent;
  private url = '';

  constructor(
    private readonly deliveries: readonly Delivery[],
    private readonly options: {
      connections: number;
      maxAttempts: number;
      /** An answer slower than this counts as a connection error (default 30 s). */
      requestTimeoutMs?: number;
      onResponse?: (responses: number) => void;
    },
  ) {
    this.outcomes = deliveries.map(() => ({ statuses: [], codes: [], connectionErrors: [] }));
    this.agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  }

  /** Sends every delivery (and every retry) to `url` over `connections` connections; resolves when each has an answer or ran out of attempts. */
  async run(url: string): Promise<LoadSummary> {
    this.url = url;
    const started = performance.now();
    await Promise.all(Array.from({ length: this.options.connections }, () => this.connection()));
    this.agent.destroy();
    const seconds = (performance.now() - started) / 1000;
    return this.summary(seconds);
  }

  /** Holds every connection before its next request (the ones in flight go on). */
  pause(): void {
    if (this.gate !== null) return;
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    this.gate = { promise, open };
  }

  /** Points the connections at `url` and lets them go on. */
  resume(url: string): void {
    this.url = url;
    const gate = this.gate;
    this.gate = null;
    gate?.open();
  }

  get answered(): number {
    return this.responses;
  }

  private async connection(): Promise<void> {
    // Bounded: each delivery is taken at most maxAttempts times.
    for (;;) {
      if (this.gate !== null) await this.gate.promise;
      const delivery = this.retries.shift() ?? this.deliveries[this.next++];
      if (delivery === undefined) {
        this.next = this.deliveries.length;
        // Another connection's delivery may still fail and need a retry: wait for it to settle.
        if (this.inFlight === 0 && this.retries.length === 0) return;
        await new Promise<void>((resolve) => this.waiters.push(resolve));
        continue;
      }
      this.inFlight += 1;
      await this.send(delivery);
      this.inFlight -= 1;
      for (const wake of this.waiters.splice(0)) wake();
    }
  }

  private async send(delivery: Delivery): Promise<void> {
    const outcome = this.outcomes[delivery.index]!;
    const { body, headers } = signDelivery(delivery, Date.now());
    const target = new URL(`/hooks/${delivery.inbox}/hooks`, this.url);
    const started = performance.now();
    try {
      const { status, text } = await this.post(target, body, headers);
      this.latencies.push(performance.now() - started);
      outcome.statuses.push(status);
      if (status < 200 || status > 299) outcome.codes.push(errorCode(text));
      this.responses += 1;
      this.options.onResponse?.(this.responses);
    } catch (error) {
      outcome.connectionErrors.push((error as NodeJS.ErrnoException).code ?? String(error));
      if (outcome.connectionErrors.length < this.options.maxAttempts) this.retries.push(delivery);
    }
  }

  private post(url: URL, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent: this.agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.setTimeout(this.options.requestTimeoutMs ?? 30_000, () => req.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' })));
      req.on('error', reject);
      req.end(body);
    });
  }

  private summary(seconds: number): LoadSummary {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const statuses: Record<string, number> = {};
    let connectionErrors = 0;
    const connectionErrorCodes: Record<string, number> = {};
    for (const outcome of this.outcomes) {
      for (const status of outcome.statuses) statuses[status] = (statuses[status] ?? 0) + 1;
      connectionErrors += outcome.connectionErrors.length;
      for (const code of outcome.connectionErrors) connectionErrorCodes[code] = (connectionErrorCodes[code] ?? 0) + 1;
    }
    return {
      responses: sorted.length,
      connectionErrors,
      connectionErrorCodes,
      seconds,
      perSecond: sorted.length / seconds,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted[sorted.length - 1] ?? Number.NaN,
      statuses,
    };
  }
}

function errorCode(text: string): string {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '(no code)';
  } catch {
    return '(not JSON)';
  }
}

/** Nearest rank on sorted values. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
