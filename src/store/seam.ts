/**
 * The testing kit's way below the engine, and nobody else's (src/testing/
 * is its only user in src/, test/architecture checks it): a Store over
 * another store's own backend, with each inbox's port verbs intercepted.
 * The crash points (testing/crashing-store.ts) and the chaos harness's
 * journal sit here, on the backend's verbs, so that what they interrupt is
 * a real commit boundary and the engine above them runs as in production.
 *
 * `cut` is the same inbox's verbs cut off before their COMMIT: each runs its
 * whole transaction, then rolls it back, as a process killed at that moment
 * would leave it. The backends build it in their own cut-before-commit.ts
 * from their internal parts, so the verbs production calls carry no
 * test-only flag.
 */
import { VigilError } from '../errors.js';
import type { Store } from './contract.js';
import type { InboxPort, StorePort } from './engine/port.js';
import { portOf, VigilStore } from './engine/store.js';

export type { Claim, InboxPort } from './engine/port.js';

/** The write verbs a crash point may cut off before their COMMIT. */
export type CutVerbs = Pick<InboxPort, 'finish' | 'finishAndClaim' | 'reserve'>;

/** One inbox's overrides, given its real verbs and the same verbs cut off before their COMMIT. */
export type PortOverrides = (inner: InboxPort, cut: CutVerbs) => Partial<InboxPort>;

/** A Store over `store`'s own backend with `overrides` on each inbox's verbs; closing it closes `store`. */
export function interceptPorts(store: Store, overrides: PortOverrides): Store {
  const port = portOf(store);
  if (port === undefined) throw new VigilError('invalid_options', 'this wraps a store from openStore() or throwawayStore(), not a hand-made Store');
  const wrapped: StorePort = passThrough(port, {
    inbox: (id: string) => {
      const inner = port.inbox(id);
      return passThrough(inner, overrides(inner, cutVerbs(port, id)));
    },
    close: () => store.close(),
  });
  return new VigilStore(wrapped, store.events);
}

/** The backend's cut-before-commit twin of one inbox's port, loaded when first used (with its backend's driver already loaded). */
function cutVerbs(port: StorePort, id: string): CutVerbs {
  let twin: Promise<CutVerbs> | undefined;
  const load = async (): Promise<CutVerbs> => {
    if (port.backend === 'sqlite') return (await import('./sqlite/cut-before-commit.js')).cutBeforeCommit(port, id);
    return (await import('./postgres/cut-before-commit.js')).cutBeforeCommit(port, id);
  };
  const get = (): Promise<CutVerbs> => (twin ??= load());
  return {
    finish: async (...args) => (await get()).finish(...args),
    finishAndClaim: async (...args) => (await get()).finishAndClaim(...args),
    reserve: async (...args) => (await get()).reserve(...args),
  };
}

function passThrough<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
