/**
 * The worker's store: the real one, with its backend verbs wrapped
 * (src/testing/wrap-port.ts) to write the grant log (every lease acquired
 * or renewed, every release) and to die at armed crash points. It changes
 * no result: whatever the store answers is what the engine and the runtime
 * get.
 */
import type { Store } from '../src/store/contract.js';
import { wrapPort } from '../src/testing/wrap-port.js';
import type { CrashPoints } from './crash-points.js';
import { monotonicMs, type Journal } from './journal.js';

export interface ChaosStoreOptions {
  journal: Journal;
  crashes: CrashPoints;
}

export function chaosStore(inner: Store, { journal, crashes }: ChaosStoreOptions): Store {
  return wrapPort(inner, (port) => {
    const inbox = port.id;
    return {
      async acquire(holder) {
        const askedAt = monotonicMs();
        const acquired = await port.acquire(holder);
        if (acquired !== null) {
          journal.write({ k: 'acquire', inbox, holder, gen: acquired.gen, askedAt, gotAt: monotonicMs() });
          await crashes.pass('after-acquire', inbox);
        }
        return acquired;
      },
      async release(holder, gen) {
        await crashes.pass('before-release', inbox);
        journal.write({ k: 'release', inbox, holder, gen, at: monotonicMs() });
        return port.release(holder, gen);
      },
      async claim(holder, gen) {
        journal.write({ k: 'claiming', inbox, holder, gen });
        const claim = await port.claim(holder, gen);
        const batch = claim.events;
        const [events, attempts] = [batch.map((e) => `${e.source}/${e.sourceId}`), batch.map((e) => e.attempts)];
        journal.write({ k: 'claim', inbox, holder, gen, ids: batch.map((e) => e.id), events, attempts });
        if (batch.length > 0) await crashes.pass('after-claim', inbox);
        return claim;
      },
      async finish(holder, gen, ids, outcome, options) {
        await crashes.pass('before-finish', inbox);
        await crashes.pass('in-finish', inbox);
        const finished = await port.finish(holder, gen, ids, outcome, options);
        journal.write({ k: 'finish', inbox, holder, gen, ids: [...ids], ok: finished, ...(outcome.error === null ? {} : { error: outcome.error }) });
        await crashes.pass('after-finish', inbox);
        return finished;
      },
      async reserve(plan, options) {
        await crashes.pass('in-dispatch', inbox);
        return port.reserve(plan, options);
      },
    };
  });
}
