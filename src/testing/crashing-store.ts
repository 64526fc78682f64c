/**
 * Crash points: a Store wrapper that makes a worker die at a named moment,
 * so a test can write the failure scenario its agent must survive.
 *
 *   after-claim              claimBatch commits (the attempt is counted), then the
 *                            worker dies holding the batch: nobody runs or finishes it.
 *   before-finish            the agent ran (its side effects happened), then the
 *                            worker dies before `finish`: no outcome, no reply queued.
 *   between-send-and-record  dispatch's send callback delivers the message, then the
 *                            dispatcher dies before the store records it as sent.
 *
 * The crash throws a SimulatedCrash out of the call and then behaves like a
 * dead process, not like an error: the operation after the point never
 * happens. A crashed worker (its inbox and holder) stays dead on this
 * wrapper: its later acquire, claimBatch, finish and release calls on that
 * inbox throw SimulatedCrash without reaching the store, so its lease is not
 * released and lapses after leaseTtlMs, as a killed process's would. Run the
 * next worker under another holder name (a restarted process gets a new one).
 * A crashed dispatch is left hanging inside the store (its send never
 * returns), so the batch stays reserved until leaseTtlMs passes.
 */
import { VigilError } from '../errors.js';
import type { ClaimedEvent, DispatchOptions, HeldMessage, Inbox, InboxList, InboxListQuery, NextWake, RunOutcome, SendFn, Store } from '../store/contract.js';
import { InboxProxy } from './inbox-proxy.js';
import { CRASH_POINTS, SimulatedCrash, type CrashPoint, type CrashSite } from './simulated-crash.js';

export interface CrashOptions {
  /** Where the worker dies. */
  at: CrashPoint;
  /** Only in this inbox (default: any). */
  inbox?: string;
  /** Only this worker (after-claim, before-finish; default: any). */
  holder?: string;
  /** How many crashes to simulate before behaving normally (default 1; Infinity: every time). */
  times?: number;
  /** Crash only where this returns true, e.g. when the batch holds a poison event. */
  when?: (site: CrashSite) => boolean;
}

export interface CrashingStore extends Store {
  /** The wrapped store. */
  readonly inner: Store;
  /** The crashes simulated so far, oldest first. */
  readonly crashes: readonly SimulatedCrash[];
  /** Workers (`inboxId`, `holder`) that crashed and are dead on this wrapper. */
  isDead(inboxId: string, holder: string): boolean;
}

/** Wraps `store` so that a worker crashes at `options.at` (see the module comment). */
export function crashingStore(store: Store, options: CrashOptions): CrashingStore {
  return new CrashingStoreImpl(store, checkOptions(options));
}

function checkOptions(options: CrashOptions): CrashOptions {
  if (typeof options !== 'object' || options === null || !CRASH_POINTS.includes(options.at)) {
    throw new VigilError('invalid_options', `crashingStore needs { at: ${CRASH_POINTS.map((p) => `'${p}'`).join(' | ')} }`);
  }
  const times = options.times ?? 1;
  if (!(times === Infinity || (Number.isSafeInteger(times) && times >= 0))) {
    throw new VigilError('invalid_options', `crashingStore: times must be a non-negative integer or Infinity, got ${String(times)}`);
  }
  if (options.when !== undefined && typeof options.when !== 'function') throw new VigilError('invalid_options', 'crashingStore: when must be a function');
  return { ...options, times };
}

const key = (inboxId: string, holder: string): string => `${inboxId}\u0000${holder}`;

class CrashingStoreImpl implements CrashingStore {
  readonly crashes: SimulatedCrash[] = [];
  private remaining: number;
  private readonly dead = new Set<string>();
  /** What each inbox's workers claimed through this wrapper, by event id: for before-finish's site. */
  private readonly claimed = new Map<string, Map<number, ClaimedEvent>>();

  constructor(
    readonly inner: Store,
    private readonly options: CrashOptions,
  ) {
    this.remaining = options.times ?? 1;
  }

  get leaseTtlMs(): number {
    return this.inner.leaseTtlMs;
  }
  inbox(id: string): Inbox {
    return new CrashingInbox(this.inner.inbox(id), this);
  }
  inboxes(): Promise<string[]> {
    return this.inner.inboxes();
  }
  readyInboxes(options?: { limit?: number }): Promise<string[]> {
    return this.inner.readyInboxes(options);
  }
  listInboxes(query?: InboxListQuery): Promise<InboxList> {
    return this.inner.listInboxes(query);
  }
  dispatchableInboxes(options?: { limit?: number }): Promise<string[]> {
    return this.inner.dispatchableInboxes(options);
  }
  nextWake(): Promise<NextWake> {
    return this.inner.nextWake();
  }
  subscribe(listener: (inboxId: string) => void): Promise<() => Promise<void>> {
    return this.inner.subscribe(listener);
  }

  endSession(sessionId: string, expiresAt: number): Promise<void> {
    return this.inner.endSession(sessionId, expiresAt);
  }

  sessionEnded(sessionId: string): Promise<boolean> {
    return this.inner.sessionEnded(sessionId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  isDead(inboxId: string, holder: string): boolean {
    return this.dead.has(key(inboxId, holder));
  }

  /** Throws if this worker already died: a dead process makes no calls. */
  assertAlive(inboxId: string, holder: string, call: string): void {
    if (!this.isDead(inboxId, holder)) return;
    const site: CrashSite = { point: this.options.at, inboxId, holder, events: [], eventIds: [], messages: [] };
    throw new SimulatedCrash(site, `simulated crash: worker ${JSON.stringify(holder)} is dead (it crashed ${this.options.at}); its ${call} never happens`);
  }

  /** The crash for this site, if one is due here (it is counted and the worker marked dead), else null. */
  crashAt(site: CrashSite): SimulatedCrash | null {
    const { at, inbox, holder, when } = this.options;
    if (site.point !== at || this.remaining <= 0) return null;
    if (inbox !== undefined && site.inboxId !== inbox) return null;
    if (holder !== undefined && site.holder !== null && site.holder !== holder) return null;
    if (when !== undefined && !when(site)) return null;
    this.remaining -= 1;
    const crash = new SimulatedCrash(site);
    this.crashes.push(crash);
    if (site.holder !== null) this.dead.add(key(site.inboxId, site.holder));
    return crash;
  }

  rememberClaimed(inboxId: string, events: readonly ClaimedEvent[]): void {
    let byId = this.claimed.get(inboxId);
    if (byId === undefined) this.claimed.set(inboxId, (byId = new Map()));
    for (const event of events) byId.set(event.id, event);
  }

  claimedEvents(inboxId: string, ids: readonly number[]): ClaimedEvent[] {
    const byId = this.claimed.get(inboxId);
    return ids.flatMap((id) => {
      const event = byId?.get(id);
      return event === undefined ? [] : [event];
    });
  }

  forgetClaimed(inboxId: string, ids: readonly number[]): void {
    const byId = this.claimed.get(inboxId);
    for (const id of ids) byId?.delete(id);
  }
}

class CrashingInbox extends InboxProxy {
  constructor(
    inner: Inbox,
    private readonly crashing: CrashingStoreImpl,
  ) {
    super(inner);
  }

  override acquire(holder: string): Promise<number | null> {
    return this.alive(holder, 'acquire', () => this.inner.acquire(holder));
  }

  override release(holder: string, gen: number): Promise<boolean> {
    return this.alive(holder, 'release', () => this.inner.release(holder, gen));
  }

  override claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]> {
    return this.alive(holder, 'claimBatch', async () => {
      const batch = await this.inner.claimBatch(holder, gen);
      this.crashing.rememberClaimed(this.id, batch);
      // An empty claim took nothing in hand: there is nothing for a crash to lose.
      if (batch.length === 0) return batch;
      const crash = this.crashing.crashAt({ point: 'after-claim', inboxId: this.id, holder, events: batch, eventIds: batch.map((e) => e.id), messages: [] });
      if (crash !== null) throw crash;
      return batch;
    });
  }

  override finish(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<boolean> {
    return this.alive(holder, 'finish', async () => {
      const events = this.crashing.claimedEvents(this.id, ids);
      const crash = this.crashing.crashAt({ point: 'before-finish', inboxId: this.id, holder, events, eventIds: [...ids], messages: [] });
      if (crash !== null) throw crash;
      const finished = await this.inner.finish(holder, gen, ids, outcome);
      if (finished) this.crashing.forgetClaimed(this.id, ids);
      return finished;
    });
  }

  override dispatch(send: SendFn, options?: DispatchOptions): Promise<number> {
    let crashed!: (crash: SimulatedCrash) => void;
    const crash = new Promise<never>((_, reject) => {
      crashed = reject;
    });
    const sendThenMaybeDie: SendFn = async (body: string, messages: HeldMessage[]) => {
      await send(body, messages); // a send that throws is a failed delivery, not a crash
      const found = this.crashing.crashAt({ point: 'between-send-and-record', inboxId: this.id, holder: null, events: [], eventIds: [], messages });
      if (found === null) return;
      crashed(found);
      // The dead dispatcher never comes back to record (or release) the batch:
      // its reservation stays until leaseTtlMs, then another dispatcher sends it again.
      await new Promise<never>(() => undefined);
    };
    return Promise.race([this.inner.dispatch(sendThenMaybeDie, options), crash]);
  }

  private async alive<T>(holder: string, call: string, fn: () => Promise<T>): Promise<T> {
    this.crashing.assertAlive(this.id, holder, call);
    return fn();
  }
}
