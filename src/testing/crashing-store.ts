/**
 * Crash points: a Store whose worker dies at a named moment, so a test can
 * write the failure scenario its agent must survive. The points sit on the
 * store's backend verbs (store/seam.ts), so each one falls on a real commit
 * boundary:
 *
 *   after-acquire            the lease is granted; the worker never uses it
 *   after-claim              the claim commits (the attempt is counted), then the
 *                            worker dies holding the batch: nobody runs or finishes it
 *   before-finish            the agent ran (its side effects happened), then the
 *                            worker dies before `finish` reaches the store
 *   in-finish                the finish runs in the store and is cut off before its
 *                            COMMIT: it rolls back whole (R10), nothing of it stays
 *   after-finish             the finish commits; the worker dies before it hears so
 *   in-dispatch              the dispatch's reservation is cut off before its COMMIT:
 *                            nothing is reserved, nothing sent
 *   between-send-and-record  the channel took the batch; the store never records it
 *                            (it stays reserved until leaseTtlMs, then goes again)
 *   before-release           the turn is over; the lease is never released
 *   in-effect                a side-effect tool's call is recorded `started` (its own
 *                            commit), then the worker dies before the tool returns:
 *                            the ledger holds the call as unknown (contract/effects.ts)
 *
 * The runtime runs a turn with acquireAndClaim and finishAndClaim, each one
 * transaction where the points above fall between separate calls. Those
 * calls go through as they are unless a point inside them is due: then the
 * wrapper makes the separate calls (acquire then claim; finish, claim, and
 * release when nothing is left), so the worker still dies exactly there
 * (after-acquire before the claim, after-finish before the next claim,
 * before-release with the lease held). after-claim falls after either call
 * that claimed a batch, as it did after a claim.
 *
 * The crash throws a SimulatedCrash out of the call and then behaves like a
 * dead process, not like an error: the operation after the point never
 * happens. A crashed worker (its inbox and holder) stays dead on this
 * wrapper: its later acquire, claimBatch, finish and release calls on that
 * inbox throw SimulatedCrash without reaching the store, so its lease is not
 * released and lapses after leaseTtlMs, as a killed process's would. Run the
 * next worker under another holder name (a restarted process gets a new one).
 */
import { VigilError } from '../errors.js';
import type { ClaimedEvent, HeldMessage, Store } from '../store/contract.js';
import { interceptPorts, type Claim, type CutVerbs, type InboxPort } from '../store/seam.js';
import { CRASH_POINTS, SimulatedCrash, type CrashPoint, type CrashSite } from './simulated-crash.js';

export interface CrashOptions {
  /** Where the worker dies. */
  at: CrashPoint;
  /** Only in this inbox (default: any). */
  inbox?: string;
  /** Only this worker (the lease points; default: any). */
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
  const plan = new CrashPlan(checkOptions(options));
  const wrapped = interceptPorts(store, (inner, cut) => crashPoints(inner, cut, plan));
  return Object.assign(wrapped, {
    inner: store,
    crashes: plan.crashes,
    isDead: (inboxId: string, holder: string) => plan.isDead(inboxId, holder),
  });
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

/** Which crashes are still due, who is dead, and what each inbox's workers claimed (for the finish points' sites). */
class CrashPlan {
  readonly crashes: SimulatedCrash[] = [];
  private remaining: number;
  private readonly dead = new Set<string>();
  private readonly claimed = new Map<string, Map<number, ClaimedEvent>>();

  constructor(private readonly options: CrashOptions) {
    this.remaining = options.times ?? 1;
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

  /** Whether a crash is due at this site (without counting it). */
  due(site: CrashSite): boolean {
    const { at, inbox, holder, when } = this.options;
    if (site.point !== at || this.remaining <= 0) return false;
    if (inbox !== undefined && site.inboxId !== inbox) return false;
    if (holder !== undefined && site.holder !== null && site.holder !== holder) return false;
    return when === undefined || when(site);
  }

  /** The crash at this site: counted, the worker marked dead. */
  crash(site: CrashSite): SimulatedCrash {
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

function crashPoints(inner: InboxPort, cut: CutVerbs, plan: CrashPlan): Partial<InboxPort> {
  const inboxId = inner.id;
  const site = (point: CrashPoint, holder: string | null, more: Partial<CrashSite> = {}): CrashSite => ({
    point,
    inboxId,
    holder,
    events: [],
    eventIds: [],
    messages: [],
    ...more,
  });
  /** A claim committed: its batch is in hand, and after-claim may fall. */
  const afterClaim = (holder: string, claim: Claim): void => {
    plan.rememberClaimed(inboxId, claim.events);
    // An empty claim took nothing in hand: there is nothing for a crash to lose.
    if (claim.events.length === 0) return;
    const here = site('after-claim', holder, { events: claim.events, eventIds: claim.events.map((e) => e.id) });
    if (plan.due(here)) throw plan.crash(here);
  };
  /**
   * The way into a finish, the same for finish and finishAndClaim: the
   * worker dies before the finish reaches the store (before-finish), or
   * during it (in-finish: `cutOff` runs it and rolls it back); else the
   * batch in hand, for the points after it.
   */
  const intoFinish = async (holder: string, ids: readonly number[], cutOff: () => Promise<unknown>): Promise<Pick<CrashSite, 'events' | 'eventIds'>> => {
    plan.assertAlive(inboxId, holder, 'finish');
    const inHand = { events: plan.claimedEvents(inboxId, ids), eventIds: [...ids] };
    const before = site('before-finish', holder, inHand);
    if (plan.due(before)) throw plan.crash(before);
    const during = site('in-finish', holder, inHand);
    if (plan.due(during)) {
      await cutOff();
      throw plan.crash(during);
    }
    return inHand;
  };
  return {
    async acquire(holder) {
      plan.assertAlive(inboxId, holder, 'acquire');
      const acquired = await inner.acquire(holder);
      const here = site('after-acquire', holder);
      if (acquired !== null && plan.due(here)) throw plan.crash(here);
      return acquired;
    },
    async claim(holder, gen) {
      plan.assertAlive(inboxId, holder, 'claimBatch');
      const claim = await inner.claim(holder, gen);
      afterClaim(holder, claim);
      return claim;
    },
    async finish(finish) {
      const { holder, ids } = finish;
      const inHand = await intoFinish(holder, ids, () => cut.finish(finish));
      const finished = await inner.finish(finish);
      if (finished) plan.forgetClaimed(inboxId, ids);
      const after = site('after-finish', holder, inHand);
      if (finished && plan.due(after)) throw plan.crash(after);
      return finished;
    },
    async acquireAndClaim(holder) {
      plan.assertAlive(inboxId, holder, 'acquire');
      if (plan.due(site('after-acquire', holder))) {
        const acquired = await inner.acquire(holder);
        if (acquired !== null) throw plan.crash(site('after-acquire', holder));
        return null;
      }
      const result = await inner.acquireAndClaim(holder);
      if (result !== null) afterClaim(holder, result.claim);
      return result;
    },
    async finishAndClaim(finish) {
      const { holder, gen, ids } = finish;
      const inHand = await intoFinish(holder, ids, () => cut.finishAndClaim(finish));
      const after = site('after-finish', holder, inHand);
      const beforeRelease = site('before-release', holder);
      if (plan.due(after) || plan.due(beforeRelease)) {
        // A point between the step's parts: make them as separate calls, so the worker dies there.
        const finished = await inner.finish(finish);
        if (!finished) return { finished, claim: { events: [], dead: [] } };
        plan.forgetClaimed(inboxId, ids);
        if (plan.due(after)) throw plan.crash(after);
        const claim = await inner.claim(holder, gen);
        afterClaim(holder, claim);
        if (claim.events.length === 0) {
          if (plan.due(beforeRelease)) throw plan.crash(beforeRelease);
          await inner.release(holder, gen);
        }
        return { finished, claim };
      }
      const result = await inner.finishAndClaim(finish);
      if (result.finished) {
        plan.forgetClaimed(inboxId, ids);
        afterClaim(holder, result.claim);
      }
      return result;
    },
    async startEffect(holder, gen, intent) {
      plan.assertAlive(inboxId, holder, 'startEffect');
      const started = await inner.startEffect(holder, gen, intent);
      const here = site('in-effect', holder, { effect: { key: intent.key, tool: intent.tool } });
      // After the commit, before the tool returns: whether its effect happened nobody knows.
      if (started === 'started' && plan.due(here)) throw plan.crash(here);
      return started;
    },
    async release(holder, gen) {
      plan.assertAlive(inboxId, holder, 'release');
      const here = site('before-release', holder);
      if (plan.due(here)) throw plan.crash(here);
      return inner.release(holder, gen);
    },
    async reserve(planBatch, options) {
      let messages: readonly HeldMessage[] = [];
      const seeing: typeof planBatch = (input) => {
        const decision = planBatch(input);
        messages = decision.batch?.messages ?? [];
        return decision;
      };
      const here = site('in-dispatch', null);
      if (!plan.due(here)) return inner.reserve(planBatch, options);
      await cut.reserve(seeing, options);
      throw plan.crash({ ...here, messages });
    },
    async markSent(batch, failures) {
      const here = site('between-send-and-record', null, { messages: batch.messages });
      if (plan.due(here)) throw plan.crash(here);
      return inner.markSent(batch, failures);
    },
  };
}
