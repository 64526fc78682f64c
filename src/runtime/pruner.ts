/**
 * Retention in the background (`vigil serve` with `engine.retention`): a
 * sweep every `everyMs`, in batches of `batch` rows, each batch one short
 * transaction per inbox, with a pause after each batch nineteen times as
 * long as the batch took. So pruning takes at most about a twentieth of the
 * time, however much is due, and no ingest waits behind a long transaction;
 * a backlog (retention just switched on) is worked off over several sweeps.
 *
 * A twentieth, not a tenth: on SQLite a batch runs on the thread that also
 * commits ingests, so ingest loses about the Pruner's share of that thread.
 * At a tenth it measured 7–10% slower with a backlog to prune (the
 * retention benchmark's limit is 10%); at a twentieth the Pruner still
 * removes about a thousand SQLite rows a second per process, far more than
 * an inbox service takes in.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/logger.js';
import type { Store } from '../store/contract.js';

export interface PrunerOptions {
  store: Store;
  logger?: Logger;
  /** Between sweeps (default a minute). */
  everyMs?: number;
  /** Rows per prune call (default 1,000). */
  batch?: number;
  /** Of the time a sweep runs, the share its batches may take (default 0.05). */
  dutyCycle?: number;
}

export class Pruner {
  private readonly store: Store;
  private readonly logger: Logger | undefined;
  private readonly everyMs: number;
  private readonly batch: number;
  private readonly pauseFactor: number;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | null = null;

  constructor({ store, logger, everyMs = 60_000, batch = 1_000, dutyCycle = 0.05 }: PrunerOptions) {
    this.store = store;
    this.logger = logger;
    this.everyMs = everyMs;
    this.batch = batch;
    this.pauseFactor = (1 - dutyCycle) / dutyCycle;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  /** One sweep to the end (more: false), paced; for `start`'s loop and for tests. */
  async sweep(): Promise<void> {
    for (;;) {
      const started = performance.now();
      const pruned = await this.store.prune({ limit: this.batch });
      if (!pruned.more || this.stopping.signal.aborted) return;
      await this.pause(Math.max(1, (performance.now() - started) * this.pauseFactor));
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      try {
        await this.sweep();
      } catch (error) {
        // An inbox that cannot be pruned now (busy, unreadable) is tried again at the next sweep.
        if (!this.stopping.signal.aborted) this.logger?.warn({ err: error }, 'pruning stopped for this sweep; it resumes at the next one');
      }
      await this.pause(this.everyMs);
    }
  }

  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.stopping.signal }).catch(() => undefined);
  }
}
