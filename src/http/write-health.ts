/**
 * Whether the store takes this process's writes, as its last write found
 * out: `/healthz` says `degraded` (503) while they fail, so a load balancer
 * or an operator sees a full disk or a lost database although reads (what
 * the health check itself asks) still work.
 *
 * Only a write can tell that writes work again, and a process that says it
 * is unhealthy may be sent no more writes. So a failure counts for
 * DEGRADED_FOR_MS after the last one, unless a write succeeds sooner: then
 * traffic comes back, and the next write either clears it or fails again.
 * Only `store_unavailable` counts (the disk, the files, the database
 * server): busy is contention, and invalid input is the sender's.
 */
import type { Clock } from '../clock.js';

export const DEGRADED_FOR_MS = 30_000;

export interface WriteFailure {
  /** When the first failure since the last success happened. */
  since: number;
  /** When the latest one did. */
  last: number;
  reason: string;
}

export class WriteHealth {
  private failure: WriteFailure | null = null;

  constructor(private readonly now: Clock) {}

  failed(reason: string): void {
    const now = this.now();
    this.failure = { since: this.failure?.since ?? now, last: now, reason };
  }

  succeeded(): void {
    this.failure = null;
  }

  /** The failing writes that make the service degraded now, or null. */
  degraded(): WriteFailure | null {
    if (this.failure === null || this.now() - this.failure.last >= DEGRADED_FOR_MS) return null;
    return this.failure;
  }
}
