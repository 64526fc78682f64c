/**
 * Keeps a run's lease (R2) alive and notices when it is gone. Renewing is
 * `acquire` with the same holder: the same generation back means renewed; a
 * different one (the lease lapsed and we took it again: our claim is fenced
 * out, R3) or null (another holder took over) means the run has lost it.
 *
 * A renewal that throws (a busy file, a dropped connection) is not a loss:
 * the store, not this guess, decides at `finish`. Only an answer from the
 * store ends the run.
 */
import type { Inbox } from '../store/contract.js';

export class LeaseHeartbeat {
  private timer: NodeJS.Timeout | null = null;
  private lostGen: number | null | undefined;
  private renewing: Promise<boolean> | null = null;
  private stopped = false;
  private paused = false;

  constructor(
    private readonly inbox: Inbox,
    private readonly holder: string,
    readonly gen: number,
    /** How often to renew while a step runs; null: only between steps. */
    private readonly intervalMs: number | null,
    private readonly onLost: () => void,
  ) {}

  get lost(): boolean {
    return this.lostGen !== undefined;
  }

  start(): void {
    this.schedule();
  }

  /** Renews now; false once the lease is lost. Concurrent calls share one renewal. */
  renew(): Promise<boolean> {
    if (this.lost) return Promise.resolve(false);
    this.renewing ??= this.renewOnce().finally(() => {
      this.renewing = null;
    });
    return this.renewing;
  }

  /**
   * Holds the timer and waits for a renewal in flight, for a step that
   * renews or ends the lease itself (finishAndClaim): a renewal landing
   * after that step released the lease would take it again under a new
   * generation and report the run's lease lost. `resume()` goes on.
   */
  async pause(): Promise<void> {
    this.paused = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.renewing;
  }

  resume(): void {
    this.paused = false;
    this.schedule();
  }

  /**
   * Stops renewing and waits for a renewal in flight. When a renewal found
   * the lease lapsed and took it again under a new generation, that lease is
   * ours too: returns its generation so the caller releases it instead of
   * leaving the inbox blocked for a whole leaseTtlMs.
   */
  async stop(): Promise<number | null> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.renewing;
    return this.lostGen ?? null;
  }

  private async renewOnce(): Promise<boolean> {
    let gen: number | null;
    try {
      gen = await this.inbox.acquire(this.holder);
    } catch {
      return true;
    }
    if (gen === this.gen) return true;
    this.lostGen = gen;
    this.onLost();
    return false;
  }

  private schedule(): void {
    if (this.intervalMs === null || this.stopped || this.paused || this.lost || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.renew().then(() => this.schedule());
    }, this.intervalMs);
  }
}
