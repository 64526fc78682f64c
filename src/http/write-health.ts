/**
 * Whether the store takes this process's writes, for `/healthz` (which
 * anyone may ask, so it says a reason class and names nobody) and for the
 * operator (the log and the dashboard get the details).
 *
 * One inbox's failure is that inbox's: a corrupt file or a bad row marks
 * that inbox, never the instance, or one user could take the service out
 * of rotation for everyone. The instance is degraded when the store as a
 * whole cannot write:
 *   - a write that belongs to no inbox (Store.probeWrites: a file synced in
 *     SQLite's directory, a write statement on PostgreSQL) fails. It is made
 *     after every failed write, and again by `/healthz` while it fails, so
 *     the instance comes back by itself once the disk or the database does,
 *     with no write needed to tell;
 *   - or most of the recent writes failed, across several inboxes (the
 *     probe may pass where inboxes fail: no file handles left to open them).
 *     Each failure counts for DEGRADED_FOR_MS: only writes tell this, and a
 *     process out of rotation gets none.
 * Only `store_unavailable` counts (the disk, the files, the database
 * server): busy is contention, and invalid input is the sender's.
 */
import type { Clock } from '../clock.js';
import type { RuntimeEvents } from '../events.js';
import { isVigilError } from '../errors.js';
import type { Store } from '../store/contract.js';

export const DEGRADED_FOR_MS = 30_000;
/** While the probe fails, how often `/healthz` may make it again. */
export const PROBE_EVERY_MS = 1_000;
/** The writes the "most recent writes" rule looks at, and how many inboxes must fail among them. */
const RECENT_WRITES = 20;
const FAILING_INBOXES = 3;
/** Inboxes kept marked, for the dashboard (the oldest mark goes first). */
const MARKED_INBOXES = 1_000;

/** What `/healthz` may say of the store: a class, never an inbox or a path. */
export type HealthReason = 'store_unreachable' | 'store_unwritable';

export interface Degraded {
  reason: HealthReason;
  /** When the store first failed, since it last worked. */
  since: number;
}

/** One inbox whose writes fail, for the operator. */
export interface InboxFailure {
  inboxId: string;
  since: number;
  last: number;
  error: string;
}

interface Outcome {
  at: number;
  inboxId: string | null;
  ok: boolean;
}

export class WriteHealth {
  private readonly marked = new Map<string, InboxFailure>();
  private readonly recent: Outcome[] = [];
  /** Failures counted already: a failure noted where it happened is not noted again by the route's error handler. */
  private readonly counted = new WeakSet<object>();
  private probeFailure: { since: number; error: string } | null = null;
  private probing: Promise<void> | null = null;
  private lastProbe = -Infinity;
  private reported: HealthReason | null = null;

  constructor(
    private readonly store: Pick<Store, 'probeWrites'>,
    private readonly now: Clock,
    private readonly events: RuntimeEvents,
  ) {}

  /** A write that failed; `inboxId` when it was one inbox's. Anything but store_unavailable is ignored. */
  failed(inboxId: string | null, error: unknown): void {
    if (!isVigilError(error, 'store_unavailable') || this.counted.has(error)) return;
    this.counted.add(error);
    const at = this.now();
    this.remember({ at, inboxId, ok: false });
    const message = error.message;
    void this.recentProbe().then(() => {
      // The store takes writes: this failure is the inbox's own.
      if (inboxId !== null && this.probeFailure === null) this.mark(inboxId, at, message);
    });
  }

  /** A write that worked, of `inboxId` when it was one inbox's. */
  succeeded(inboxId: string | null = null): void {
    this.remember({ at: this.now(), inboxId, ok: true });
    if (inboxId !== null && this.marked.delete(inboxId)) this.events.emit('inbox:writes-recovered', { inboxId });
    // A write worked while the probe failed: ask again now (one at a time), rather than wait for /healthz's next turn.
    if (this.probeFailure !== null) void this.probe();
  }

  /**
   * The probe in flight, or the last one's answer if it is under
   * PROBE_EVERY_MS old, else a new one: a sender hammering a broken inbox
   * costs one probe write a second, not one per request.
   */
  private recentProbe(): Promise<void> {
    if (this.probing !== null || this.now() - this.lastProbe >= PROBE_EVERY_MS) return this.probe();
    return Promise.resolve();
  }

  private mark(inboxId: string, at: number, error: string): void {
    const mark = this.marked.get(inboxId);
    if (mark !== undefined) {
      mark.last = at;
      mark.error = error;
      return;
    }
    if (this.marked.size >= MARKED_INBOXES) this.marked.delete(this.marked.keys().next().value!);
    this.marked.set(inboxId, { inboxId, since: at, last: at, error });
    this.events.emit('inbox:writes-failing', { inboxId, error });
  }

  /** What `/healthz` says: null when healthy. Probes again while the probe fails (at most every PROBE_EVERY_MS). */
  async degraded(): Promise<Degraded | null> {
    if (this.probeFailure !== null || this.probing !== null) await this.recentProbe();
    const failure = this.writeFailure();
    return failure === null ? null : { reason: 'store_unwritable', since: failure.since };
  }

  /** Why writes fail, if they do; said to the log when it changes (so it is logged whether or not /healthz is asked). */
  private writeFailure(): { since: number; error: string } | null {
    const failure = this.probeFailure ?? this.recentFailure();
    this.report(failure === null ? null : 'store_unwritable', failure?.error ?? null);
    return failure;
  }

  /** The store did not answer the health check's read (or not in time). */
  unreachable(error: string): Degraded {
    this.report('store_unreachable', error);
    return { reason: 'store_unreachable', since: this.now() };
  }

  /** The inboxes whose writes fail now, most recent failure first: for the dashboard. */
  failingInboxes(): InboxFailure[] {
    return [...this.marked.values()].sort((a, b) => b.last - a.last);
  }

  private probe(): Promise<void> {
    this.probing ??= (async () => {
      this.lastProbe = this.now();
      try {
        await this.store.probeWrites();
        this.probeFailure = null;
      } catch (error) {
        this.probeFailure = { since: this.probeFailure?.since ?? this.now(), error: error instanceof Error ? error.message : String(error) };
      } finally {
        this.probing = null;
      }
      this.writeFailure();
    })();
    return this.probing;
  }

  private remember(outcome: Outcome): void {
    this.recent.push(outcome);
    if (this.recent.length > RECENT_WRITES) this.recent.shift();
  }

  /** Most recent writes failed, across several inboxes: the store, whatever the probe says. */
  private recentFailure(): { since: number; error: string } | null {
    const after = this.now() - DEGRADED_FOR_MS;
    const recent = this.recent.filter((outcome) => outcome.at > after);
    const failures = recent.filter((outcome) => !outcome.ok);
    const inboxes = new Set(failures.map((outcome) => outcome.inboxId).filter((id) => id !== null));
    if (inboxes.size < FAILING_INBOXES || failures.length * 2 <= recent.length) return null;
    return { since: failures[0]!.at, error: `${failures.length} of the last ${recent.length} writes failed, in ${inboxes.size} inboxes` };
  }

  /** Tells the log once per change, with the details `/healthz` leaves out. */
  private report(reason: HealthReason | null, error: string | null): void {
    if (reason === this.reported) return;
    this.reported = reason;
    this.events.emit('store:health', reason === null ? { status: 'ok', reason: null, error: null } : { status: 'degraded', reason, error });
  }
}
