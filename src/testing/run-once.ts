/**
 * One worker turn at one inbox, through the runtime's own code path (the
 * turn a WorkerPool runs): due timers fire, then acquire, then claim, run
 * the agent and finish until nothing is left, then release (acquireAndClaim,
 * then finishAndClaim after each batch). Run it over a
 * crashingStore and the turn ends where the worker died, as a killed
 * process would leave it: the lease held, the claim unfinished.
 */
import type { Agent } from '../agent/agent.js';
import { systemClock, type Clock, type FakeClock } from '../clock.js';
import type { ApprovalLink } from '../http/approval-links.js';
import { runInbox } from '../runtime/run-inbox.js';
import type { RuntimeEventMap, RuntimeEvents } from '../events.js';
import type { ClaimedEvent, Inbox, Store } from '../store/contract.js';
import type { CrashingStore } from './crashing-store.js';
import { isSimulatedCrash, type SimulatedCrash } from './simulated-crash.js';

export interface RunOnceOptions {
  /** A store, a throwawayStore's `store`, or a crashingStore around one. */
  store: Store;
  /** The inbox id. */
  inbox: string;
  agent: Agent;
  /** This worker's name on the lease (default 'worker'). */
  holder?: string;
  /** What the agent sees as ctx.now (default: Date.now); pass the throwaway store's fake clock. */
  clock?: FakeClock | Clock;
  /** A run longer than this is aborted and finished with an error (default 60 s, real time). */
  runTimeoutMs?: number;
  /** Where the turn's runtime events go (run:started, run:finished, ...; default the store's own). */
  events?: RuntimeEvents;
  /** Builds the link ctx.requestApproval returns (default: none, the link is null). */
  approvalLink?: (link: ApprovalLink) => string;
  /** When an approval that names no reminder reminds, as a share of its life (default 0.75, as `vigil serve`'s; null: never). */
  approvalRemindAt?: number | null;
}

export interface TurnResult {
  /** worked: ran or fired something; idle: nothing to do; busy: another holder has the lease; crashed: a crash point was hit. */
  outcome: 'worked' | 'idle' | 'busy' | 'crashed';
  /** The crash that ended the turn, or null. */
  crash: SimulatedCrash | null;
  /** Each batch claimed in this turn, in order, including one the worker crashed holding. */
  claimed: ClaimedEvent[][];
  /** The turn's finished runs, as the runtime reports them (outcome, error, eventIds, ...). */
  runs: RuntimeEventMap['run:finished'][];
}

/** Runs one worker turn for `inbox`; a SimulatedCrash ends it with outcome 'crashed', any other error is thrown. */
export async function runOnce(options: RunOnceOptions): Promise<TurnResult> {
  const { store, agent, holder = 'worker', runTimeoutMs = 60_000 } = options;
  const clock: Clock = options.clock === undefined ? systemClock : typeof options.clock === 'function' ? options.clock : options.clock.now;
  const events = options.events ?? store.events;
  const claimed: ClaimedEvent[][] = [];
  const inbox = recordingClaims(store.inbox(options.inbox), claimed);
  const runs: RuntimeEventMap['run:finished'][] = [];
  const stopListening = events.on('run:finished', (run) => {
    if (run.inboxId === inbox.id) runs.push(run);
  });
  // A crash the runtime swallowed (a release that "failed" is only logged, as it should be in
  // production) still ended this worker: the crashing store's record says so.
  const crashes = (store as Partial<CrashingStore>).crashes;
  const crashedBefore = crashes?.length ?? 0;
  try {
    const outcome = await runInbox(
      {
        agent,
        events,
        holder,
        runTimeoutMs,
        heartbeatMs: null, // renew between steps only: no timers left behind by a crashed turn
        clock,
        approvalLink: options.approvalLink,
        approvalRemindAt: options.approvalRemindAt,
        draining: () => false,
        shutdown: new AbortController().signal,
      },
      inbox,
    );
    const swallowed = crashes !== undefined && crashes.length > crashedBefore ? crashes[crashes.length - 1]! : null;
    return swallowed === null ? { outcome, crash: null, claimed, runs } : { outcome: 'crashed', crash: swallowed, claimed, runs };
  } catch (error) {
    if (!isSimulatedCrash(error)) throw error;
    return { outcome: 'crashed', crash: error, claimed, runs };
  } finally {
    stopListening();
  }
}

/** The inbox, keeping what the turn claimed, including the batch a worker died holding (after-claim). */
function recordingClaims(inner: Inbox, claimed: ClaimedEvent[][]): Inbox {
  const keep = (batch: readonly ClaimedEvent[]): void => {
    if (batch.length > 0) claimed.push([...batch]);
  };
  const recording = async <T>(call: () => Promise<T>, batchOf: (value: T) => readonly ClaimedEvent[]): Promise<T> => {
    try {
      const value = await call();
      keep(batchOf(value));
      return value;
    } catch (error) {
      if (isSimulatedCrash(error) && error.point === 'after-claim') keep(error.events);
      throw error;
    }
  };
  const calls: Partial<Inbox> = {
    claimBatch: (holder, gen) => recording(() => inner.claimBatch(holder, gen), (batch) => batch),
    acquireAndClaim: (holder) => recording(() => inner.acquireAndClaim(holder), (run) => run?.events ?? []),
    finishAndClaim: (holder, gen, ids, outcome) => recording(() => inner.finishAndClaim(holder, gen, ids, outcome), (next) => next.events),
  };
  return new Proxy(inner, {
    get(target, property) {
      if (Object.hasOwn(calls, property)) return calls[property as keyof Inbox];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
