/**
 * The worker's store: the real one, wrapped to write the grant log (every
 * lease acquired or renewed, every release) and to die at armed crash
 * points. It changes no result: whatever the store answers is what the
 * runtime gets.
 */
import type { ClaimedEvent, DispatchOptions, Inbox, RunOutcome, SendFn, Store } from '../src/store/contract.js';
import { InboxProxy } from '../src/testing/inbox-proxy.js';
import type { CrashPoints } from './crash-points.js';
import { monotonicMs, type Journal } from './journal.js';

export interface ChaosStoreOptions {
  journal: Journal;
  crashes: CrashPoints;
  /** Force { atMostOnce: true } on every dispatch (the Dispatcher has no option for it). */
  atMostOnce: boolean;
}

export function chaosStore(inner: Store, options: ChaosStoreOptions): Store {
  // Everything but inbox() goes straight through, whatever the contract grows.
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'inbox') return (id: string): Inbox => new ChaosInbox(target.inbox(id), options);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

class ChaosInbox extends InboxProxy {
  constructor(
    inner: Inbox,
    private readonly options: ChaosStoreOptions,
  ) {
    super(inner);
  }

  override async acquire(holder: string): Promise<number | null> {
    const askedAt = monotonicMs();
    const gen = await this.inner.acquire(holder);
    if (gen !== null) {
      this.options.journal.write({ k: 'acquire', inbox: this.id, holder, gen, askedAt, gotAt: monotonicMs() });
      await this.options.crashes.pass('after-acquire', this.id);
    }
    return gen;
  }

  override async release(holder: string, gen: number): Promise<boolean> {
    await this.options.crashes.pass('before-release', this.id);
    this.options.journal.write({ k: 'release', inbox: this.id, holder, gen, at: monotonicMs() });
    return this.inner.release(holder, gen);
  }

  override async claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]> {
    this.options.journal.write({ k: 'claiming', inbox: this.id, holder, gen });
    const batch = await this.inner.claimBatch(holder, gen);
    const [events, attempts] = [batch.map((e) => `${e.source}/${e.sourceId}`), batch.map((e) => e.attempts)];
    this.options.journal.write({ k: 'claim', inbox: this.id, holder, gen, ids: batch.map((e) => e.id), events, attempts });
    if (batch.length > 0) await this.options.crashes.pass('after-claim', this.id);
    return batch;
  }

  override async finish(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<boolean> {
    await this.options.crashes.pass('before-finish', this.id);
    await this.options.crashes.pass('in-finish', this.id);
    const finished = await this.inner.finish(holder, gen, ids, outcome);
    this.options.journal.write({ k: 'finish', inbox: this.id, holder, gen, ids: [...ids], ok: finished, ...(outcome?.error === undefined ? {} : { error: outcome.error }) });
    await this.options.crashes.pass('after-finish', this.id);
    return finished;
  }

  override async dispatch(send: SendFn, options?: DispatchOptions): Promise<number> {
    await this.options.crashes.pass('in-dispatch', this.id);
    return this.inner.dispatch(send, this.options.atMostOnce ? { ...options, atMostOnce: true } : options);
  }
}
