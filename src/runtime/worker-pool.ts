/**
 * The worker pool: finds inboxes with work and runs up to `concurrency` of
 * them at once, one turn per inbox (run-inbox.ts).
 *
 * Finding work costs what is due, never what exists: `store.readyInboxes`
 * is the only list it reads, and it reads it when woken, by a subscribe hint,
 * by one timer armed from `store.nextWake()`, or by a slow safety poll
 * (wake-loop.ts). Several pools, in one process or many, may share a store:
 * the lease decides who runs an inbox; an inbox another holder has is left
 * alone for a short cool-down instead of being asked for again at once.
 */
import { settlesWithin } from './settles-within.js';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Agent } from '../agent/agent.js';
import { systemClock, type Clock } from '../clock.js';
import type { ProxyFetch } from '../agent/proxy-fetch.js';
import type { PriceTable } from '../agent/prices.js';
import type { ApprovalLink } from '../agent/approval-summary.js';
import type { Logger } from '../observability/logger.js';
import { VigilError } from '../errors.js';
import type { Store } from '../store/contract.js';
import { RUNTIME_DEFAULTS } from './defaults.js';
import { RunAbortedError } from './run-abort.js';
import { runInbox, type InboxTurn, type RunInboxDeps } from './run-inbox.js';
import { leaseTtlOf } from './lease-ttl.js';
import type { RuntimeEvents } from '../events.js';
import { LoopOwner, WakeLoop, type PassResult } from './wake-loop.js';

export interface WorkerPoolOptions {
  store: Store;
  agent: Agent;
  /** Where runs are reported (run:started, run:finished, lease:lost, …); default the store's own (Store.events). */
  events?: RuntimeEvents;
  /** For what goes wrong around the runs (the store failing); what happens in them is an event (src/observability/observe.ts). */
  logger?: Logger;
  /** This pool's name on leases; unique per process. Default: host/pid/random. */
  holder?: string;
  /** Inboxes run at once (default 8). */
  concurrency?: number;
  /** A run longer than this is aborted and finished with an error (default 60 s). */
  runTimeoutMs?: number;
  /** The safety poll (default 5 s); hints and the armed timer do the real waking. */
  pollIntervalMs?: number;
  /** Read from the store (Store.leaseTtlMs), which sets the heartbeat; if given, it must be the store's. */
  leaseTtlMs?: number;
  /** Renew the lease this often during a run (default leaseTtlMs / 3); false: only between steps. */
  heartbeatMs?: number | false;
  /** How long an inbox is left alone after a turn that found nothing to do (default min(1 s, pollIntervalMs)). */
  busyCooldownMs?: number;
  /** `now` for the agent's context (default Date.now). */
  clock?: Clock;
  /** Builds the one-tap link returned by ctx.requestApproval. */
  approvalLink?: (link: ApprovalLink) => string;
  /** When an approval that names no reminder reminds, as a share of its life (default 0.75; null: never). */
  approvalRemindAt?: number | null;
  /** The agent's ctx.fetch, through the credential proxy. */
  proxyFetch?: ProxyFetch;
  /** The agent's ctx.proxyUrl: that proxy's base URL. */
  proxyUrl?: string;
  /** Model prices over the built-in table (agent/prices.ts): what a run's usage is priced with when its model gives no cost. */
  prices?: PriceTable;
  /**
   * How long an inbox whose turn failed (its file or rows could not be
   * read or written) is left alone: `baseMs` after the first failure,
   * doubling with each one after it, at most `maxMs` (default 1 s, 5 min).
   */
  failureBackoff?: { baseMs?: number; maxMs?: number };
}

/** One inbox's run of failed turns: how many, and since when (the pool's clock). */
interface Incident {
  failures: number;
  since: number;
}

export interface StopOptions {
  /** How long running turns may go on before their agents are aborted (default 10 s). */
  graceMs?: number;
}

/** Never ask the store for more ready inboxes than this in one pass. */
const MAX_READY_LIMIT = 1_000;

export class WorkerPool extends LoopOwner {
  readonly holder: string;
  private readonly store: Store;
  private readonly concurrency: number;
  private readonly busyCooldownMs: number;
  private readonly recheckMs: number;
  private readonly deps: RunInboxDeps;
  /** @internal The loop this starts and wakes. */
  protected readonly loop: WakeLoop;
  private readonly running = new Map<string, Promise<void>>();
  /** Inbox → when (performance.now) it may be tried again after a turn that found nothing, or failed. */
  private readonly cooling = new Map<string, number>();
  /** Inboxes whose last turn failed, until one succeeds: each failure doubles the wait, and only the first is logged as an error. */
  private readonly failing = new Map<string, Incident>();
  private readonly failureBaseMs: number;
  private readonly failureMaxMs: number;
  private readonly shutdown = new AbortController();
  private stopping: Promise<void> | null = null;

  constructor(options: WorkerPoolOptions) {
    super();
    this.store = options.store;
    this.holder = options.holder ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
    this.concurrency = positive('concurrency', options.concurrency ?? RUNTIME_DEFAULTS.concurrency);
    const pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs ?? RUNTIME_DEFAULTS.pollIntervalMs);
    const leaseTtlMs = positive('leaseTtlMs', leaseTtlOf('worker pool', options.store, options.leaseTtlMs));
    this.recheckMs = Math.min(1_000, pollIntervalMs);
    this.busyCooldownMs = options.busyCooldownMs ?? this.recheckMs;
    this.failureBaseMs = positive('failureBackoff.baseMs', options.failureBackoff?.baseMs ?? 1_000);
    this.failureMaxMs = Math.max(this.failureBaseMs, positive('failureBackoff.maxMs', options.failureBackoff?.maxMs ?? 300_000));
    const heartbeatMs = options.heartbeatMs === false ? null : positive('heartbeatMs', options.heartbeatMs ?? Math.max(1, Math.floor(leaseTtlMs / 3)));
    this.deps = {
      agent: options.agent,
      events: options.events ?? options.store.events,
      logger: options.logger,
      holder: this.holder,
      runTimeoutMs: positive('runTimeoutMs', options.runTimeoutMs ?? RUNTIME_DEFAULTS.runTimeoutMs),
      heartbeatMs,
      clock: options.clock ?? systemClock,
      approvalLink: options.approvalLink,
      approvalRemindAt: options.approvalRemindAt,
      proxyFetch: options.proxyFetch,
      proxyUrl: options.proxyUrl,
      prices: options.prices,
      draining: () => this.state !== 'started',
      shutdown: this.shutdown.signal,
    };
    this.loop = new WakeLoop({
      pass: () => this.pass(),
      pollIntervalMs,
      onError: (error) => this.deps.logger?.error({ err: error }, 'worker pool: looking for work failed'),
      hints: { store: this.store, kind: 'work', onHint: (inboxId) => this.wake(inboxId) },
    });
  }

  /**
   * A hint of work in an inbox ends its cool-down. Also for a failing inbox: a hint follows a write to
   * it that worked, so it may work again (a corrupt file sends none). If it fails again, its next wait
   * is still the doubled one.
   */
  protected forget(inboxId: string): void {
    this.cooling.delete(inboxId);
  }

  /** Inboxes whose turns are failing right now, with how many turns in a row have failed. */
  get failingInboxes(): ReadonlyMap<string, number> {
    return new Map([...this.failing].map(([inboxId, incident]) => [inboxId, incident.failures]));
  }

  /** Inboxes this pool is running right now. */
  get active(): string[] {
    return [...this.running.keys()];
  }

  /**
   * Stops claiming, lets running turns finish their batch for up to
   * `graceMs`, then aborts the rest (their events are finished with an error
   * and retried later); every lease is released. Resolves when all is quiet.
   */
  stop({ graceMs = RUNTIME_DEFAULTS.shutdownGraceMs }: StopOptions = {}): Promise<void> {
    this.stopping ??= this.drain(graceMs);
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private async drain(graceMs: number): Promise<void> {
    this.state = 'stopping';
    await this.loop.stop();
    if (!(await settlesWithin(this.running.values(), graceMs)) && this.running.size > 0) {
      this.deps.logger?.warn({ inboxes: this.active, graceMs }, 'grace period over: aborting running agents');
      this.shutdown.abort(new RunAbortedError('shutdown', 'the worker is shutting down'));
      await Promise.allSettled(this.running.values());
    }
    this.state = 'stopped';
  }

  private async pass(): Promise<PassResult> {
    if (this.state !== 'started') return null;
    const now = performance.now();
    for (const [inboxId, until] of this.cooling) if (until <= now) this.cooling.delete(inboxId);

    const free = this.concurrency - this.running.size;
    if (free > 0) {
      // Inboxes we are running or cooling may be listed too: ask for enough to fill every slot past them.
      const limit = Math.min(MAX_READY_LIMIT, free + this.running.size + this.cooling.size);
      for (const inboxId of await this.store.readyInboxes({ limit })) {
        if (this.running.size >= this.concurrency) break;
        if (!this.running.has(inboxId) && !this.cooling.has(inboxId)) this.begin(inboxId);
      }
    }

    const { wakeAt, now: storeNow } = await this.store.nextWake();
    const cooled = this.earliestCooldown(now);
    if (wakeAt === null) return cooled;
    // Due now yet not started here: our slots are full, the inbox is ours already (both
    // re-wake on completion) or cooling. Check again soon; never spin on it.
    const delay = wakeAt > storeNow ? wakeAt - storeNow : this.recheckMs;
    return cooled === null ? delay : Math.min(delay, cooled);
  }

  private begin(inboxId: string): void {
    const turn = runInbox(this.deps, this.store.inbox(inboxId)).then(
      (result: InboxTurn) => {
        this.recovered(inboxId);
        // Busy: another holder runs it. Idle: the store listed it early (its
        // ready hint may run ahead of the truth, never behind). Either way,
        // asking again at once would spin; a hint for it ends the wait.
        if (result !== 'worked') this.cool(inboxId);
      },
      (error: unknown) => this.failed(inboxId, error),
    );
    this.running.set(
      inboxId,
      turn.finally(() => {
        this.running.delete(inboxId);
        this.loop.wake();
      }),
    );
  }

  /**
   * A turn that threw: the store could not read or write this inbox (a
   * corrupt file, a full disk). Retrying every second would write an error
   * with a stack trace every second, forever; so the wait doubles with each
   * failure up to failureMaxMs, the first failure of an incident is one
   * error line, the next ones are debug lines with their count, and the
   * turn that works again says how many failed.
   */
  private failed(inboxId: string, error: unknown): void {
    const incident = this.failing.get(inboxId) ?? { failures: 0, since: this.deps.clock() };
    incident.failures += 1;
    this.failing.set(inboxId, incident);
    const retryInMs = Math.min(this.failureMaxMs, this.failureBaseMs * 2 ** Math.min(incident.failures - 1, 30));
    this.cooling.set(inboxId, performance.now() + retryInMs);
    if (incident.failures === 1) {
      this.deps.logger?.error({ inboxId, err: error, retryInMs }, 'worker: an inbox turn failed; retrying it with a growing wait (further failures are debug lines)');
    } else {
      this.deps.logger?.debug({ inboxId, failures: incident.failures, retryInMs, error: error instanceof Error ? error.message : String(error) }, 'worker: the inbox turn failed again');
    }
  }

  private recovered(inboxId: string): void {
    const incident = this.failing.get(inboxId);
    if (incident === undefined) return;
    this.failing.delete(inboxId);
    this.deps.logger?.warn({ inboxId, failures: incident.failures, forMs: this.deps.clock() - incident.since }, 'worker: the inbox works again after %d failed turns', incident.failures);
  }

  private cool(inboxId: string): void {
    this.cooling.set(inboxId, performance.now() + this.busyCooldownMs);
  }

  private earliestCooldown(now: number): number | null {
    let earliest: number | null = null;
    for (const until of this.cooling.values()) earliest = earliest === null ? until : Math.min(earliest, until);
    return earliest === null ? null : Math.max(0, earliest - now);
  }
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new VigilError('invalid_options', `worker pool: ${name} must be a positive integer, got ${String(value)}`);
  return value;
}
