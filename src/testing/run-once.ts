/**
 * One worker turn at one inbox, through the runtime's own code path (the
 * turn a WorkerPool runs): due timers fire, then acquire, then claim, run
 * the agent and finish until nothing is left, then release. Run it over a
 * crashingStore and the turn ends where the worker died, as a killed
 * process would leave it: the lease held, the claim unfinished.
 */
import type { Agent } from '../agent/agent.js';
import { systemClock, type Clock, type FakeClock } from '../clock.js';
import type { ApprovalLink } from '../http/approval-links.js';
import { runInbox } from '../runtime/run-inbox.js';
import { RuntimeEvents, type RuntimeEventMap } from '../runtime/runtime-events.js';
import type { ClaimedEvent, Store } from '../store/contract.js';
import { InboxProxy } from './inbox-proxy.js';
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
  /** Where the turn's runtime events go (run:started, run:finished, lease:acquired, ...). */
  events?: RuntimeEvents;
  /** Builds the link ctx.requestApproval returns (default: none, the link is null). */
  approvalLink?: (link: ApprovalLink) => string;
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
  const events = options.events ?? new RuntimeEvents();
  const inbox = new RecordingInbox(store.inbox(options.inbox));
  const runs: RuntimeEventMap['run:finished'][] = [];
  const stopListening = events.on('run:finished', (run) => {
    if (run.inboxId === inbox.id) runs.push(run);
  });
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
        draining: () => false,
        shutdown: new AbortController().signal,
      },
      inbox,
    );
    return { outcome, crash: null, claimed: inbox.claimed, runs };
  } catch (error) {
    if (!isSimulatedCrash(error)) throw error;
    return { outcome: 'crashed', crash: error, claimed: inbox.claimed, runs };
  } finally {
    stopListening();
  }
}

/** Keeps what the turn claimed, including the batch a worker died holding (after-claim). */
class RecordingInbox extends InboxProxy {
  readonly claimed: ClaimedEvent[][] = [];

  override async claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]> {
    try {
      const batch = await this.inner.claimBatch(holder, gen);
      if (batch.length > 0) this.claimed.push(batch);
      return batch;
    } catch (error) {
      if (isSimulatedCrash(error) && error.point === 'after-claim' && error.events.length > 0) this.claimed.push([...error.events]);
      throw error;
    }
  }
}
