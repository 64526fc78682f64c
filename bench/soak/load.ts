/**
 * The load generator: an open-loop producer that offers events at a fixed
 * rate across the inboxes, whatever the system does with them.
 *
 * Each event gets its offer time `t` when it falls due (every 10 ms tick
 * turns the elapsed time into whole events), and that is the time its
 * latency is measured from: if the store is slow to take events and the
 * producer falls behind (at most `maxInFlight` calls at once), the wait
 * counts as latency instead of quietly lowering the offered load (the
 * "coordinated omission" a closed-loop producer has). The lag between an
 * event's offer time and its ingest call is sampled too.
 */
import type { SoakPayload } from './protocol.js';

export interface ProducerOptions {
  inboxes: number;
  maxInFlight: number;
  /** Stores the event (and books it); resolves once stored or found stored already; throws when it gave up. */
  submit(payload: SoakPayload): Promise<void>;
  onGaveUp(payload: SoakPayload, error: unknown): void;
}

const TICK_MS = 10;

export function inboxName(n: number): string {
  return `u${String(n).padStart(4, '0')}`;
}

export class Producer {
  private rate = 0;
  private credit = 0;
  private last = 0;
  private nextSeq = 0;
  private readonly queue: SoakPayload[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private drained: (() => void) | null = null;
  private windowLagMs = 0;

  constructor(private readonly options: ProducerOptions) {}

  /** Offered events per second from now on. */
  setRate(perSecond: number): void {
    this.rate = perSecond;
  }

  start(): void {
    this.last = Date.now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  /** Offers nothing more; resolves when every event already offered is stored (or given up). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.pump();
    if (this.inFlight === 0 && this.queue.length === 0) return;
    await new Promise<void>((resolve) => (this.drained = resolve));
  }

  get offered(): number {
    return this.nextSeq;
  }

  /** Events due but not yet handed to the store (the producer is behind). */
  get waiting(): number {
    return this.queue.length + this.inFlight;
  }

  /** The longest wait from offer time to ingest call since the last call. */
  takeLagMs(): number {
    const lag = this.windowLagMs;
    this.windowLagMs = 0;
    return lag;
  }

  private tick(): void {
    const now = Date.now();
    this.credit += (this.rate * (now - this.last)) / 1000;
    this.last = now;
    while (this.credit >= 1) {
      this.credit -= 1;
      const seq = this.nextSeq++;
      this.queue.push({ seq, t: now, inbox: inboxName(seq % this.options.inboxes) });
    }
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const payload = this.queue.shift()!;
      this.windowLagMs = Math.max(this.windowLagMs, Date.now() - payload.t);
      this.inFlight += 1;
      void this.options
        .submit(payload)
        .catch((error: unknown) => this.options.onGaveUp(payload, error))
        .finally(() => {
          this.inFlight -= 1;
          this.pump();
          if (this.drained !== null && this.inFlight === 0 && this.queue.length === 0) this.drained();
        });
    }
  }
}

/** Calls `attempt` until it succeeds, up to `tries` times, 250 ms apart; the last error if all failed. */
export async function withRetries<T>(tries: number, attempt: () => Promise<T>): Promise<{ value: T; failures: number }> {
  let failures = 0;
  for (;;) {
    try {
      return { value: await attempt(), failures };
    } catch (error) {
      failures += 1;
      if (failures >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
