/**
 * The worker's store: the real one, with its backend verbs wrapped
 * (src/store/seam.ts) to write the grant log (every lease acquired
 * or renewed, every release) and to die at armed crash points. It changes
 * no result: whatever the store answers is what the engine and the runtime
 * get.
 *
 * The runtime's run steps (acquireAndClaim, finishAndClaim) are one
 * transaction each and are journaled as what they did: a grant or a renewal
 * (held from when the call came back), the claim, the finish, and a release
 * when the step ended the lease. Such a release is dated when the step was
 * asked for: the worker counts on nothing after sending it, and no one else
 * can take the lease before its commit, which comes later. The crash points
 * that fall between a step's parts fall after the whole step: after-acquire
 * and after-claim after acquireAndClaim, after-finish after finishAndClaim.
 */
import type { ClaimedEvent, Store } from '../src/store/contract.js';
import { interceptPorts } from '../src/store/seam.js';
import type { CrashPoints } from './crash-points.js';
import { leaseClockMs, type Journal } from './journal.js';

export interface ChaosStoreOptions {
  journal: Journal;
  crashes: CrashPoints;
}

export function chaosStore(inner: Store, { journal, crashes }: ChaosStoreOptions): Store {
  return interceptPorts(inner, (port) => {
    const inbox = port.id;
    const claimed = (holder: string, gen: number, batch: readonly ClaimedEvent[]): void => {
      const [events, attempts] = [batch.map((e) => `${e.source}/${e.sourceId}`), batch.map((e) => e.attempts)];
      journal.write({ k: 'claim', inbox, holder, gen, ids: batch.map((e) => e.id), events, attempts });
    };
    return {
      async acquire(holder) {
        const askedAt = leaseClockMs();
        const acquired = await port.acquire(holder);
        if (acquired !== null) {
          journal.write({ k: 'acquire', inbox, holder, gen: acquired.gen, askedAt, gotAt: leaseClockMs() });
          await crashes.pass('after-acquire', inbox);
        }
        return acquired;
      },
      async release(holder, gen) {
        await crashes.pass('before-release', inbox);
        journal.write({ k: 'release', inbox, holder, gen, at: leaseClockMs() });
        return port.release(holder, gen);
      },
      async claim(holder, gen) {
        journal.write({ k: 'claiming', inbox, holder, gen });
        const claim = await port.claim(holder, gen);
        claimed(holder, gen, claim.events);
        if (claim.events.length > 0) await crashes.pass('after-claim', inbox);
        return claim;
      },
      async finish(finish) {
        const { holder, gen, ids, outcome } = finish;
        await crashes.pass('before-finish', inbox);
        await crashes.pass('in-finish', inbox);
        const finished = await port.finish(finish);
        journal.write({ k: 'finish', inbox, holder, gen, ids: [...ids], ok: finished, ...(outcome.error === null ? {} : { error: outcome.error }) });
        await crashes.pass('after-finish', inbox);
        return finished;
      },
      async acquireAndClaim(holder) {
        const askedAt = leaseClockMs();
        journal.write({ k: 'acquiring', inbox, holder });
        const result = await port.acquireAndClaim(holder);
        journal.write({ k: 'acquired', inbox, holder });
        if (result === null) return null;
        journal.write({ k: 'acquire', inbox, holder, gen: result.acquired.gen, askedAt, gotAt: leaseClockMs() });
        journal.write({ k: 'claiming', inbox, holder, gen: result.acquired.gen });
        claimed(holder, result.acquired.gen, result.claim.events);
        if (result.claim.events.length === 0) journal.write({ k: 'release', inbox, holder, gen: result.acquired.gen, at: askedAt });
        await crashes.pass('after-acquire', inbox);
        if (result.claim.events.length > 0) await crashes.pass('after-claim', inbox);
        return result;
      },
      async finishAndClaim(finish) {
        const { holder, gen, ids, outcome } = finish;
        await crashes.pass('before-finish', inbox);
        await crashes.pass('in-finish', inbox);
        const askedAt = leaseClockMs();
        journal.write({ k: 'stepping', inbox, holder, gen, at: askedAt });
        journal.write({ k: 'claiming', inbox, holder, gen });
        const result = await port.finishAndClaim(finish);
        const gotAt = leaseClockMs();
        journal.write({ k: 'finish', inbox, holder, gen, ids: [...ids], ok: result.finished, ...(outcome.error === null ? {} : { error: outcome.error }) });
        claimed(holder, gen, result.claim.events); // nothing, when the finish was refused
        if (result.finished) {
          // The step renewed the lease, or ended it when it claimed nothing (the batch was the run's last).
          if (result.claim.events.length > 0) journal.write({ k: 'acquire', inbox, holder, gen, askedAt, gotAt });
          else journal.write({ k: 'release', inbox, holder, gen, at: askedAt });
        }
        await crashes.pass('after-finish', inbox);
        if (result.claim.events.length > 0) await crashes.pass('after-claim', inbox);
        return result;
      },
      async reserve(plan, options) {
        await crashes.pass('in-dispatch', inbox);
        return port.reserve(plan, options);
      },
    };
  });
}
