/**
 * A store whose backend verbs can be intercepted: the testing kit's crash
 * points and the chaos harness's journal sit *below* the engine, on the
 * port, so what they interrupt is a real commit boundary (a claim that
 * committed, a finish rolled back) and the engine above them runs as it
 * does in production. Every verb not overridden goes straight through,
 * whatever the port grows.
 */
import { VigilError } from '../errors.js';
import type { Store } from '../store/contract.js';
import type { InboxPort, StorePort } from '../store/engine/port.js';
import { VigilStore } from '../store/engine/store.js';

export type PortOverrides = (inner: InboxPort) => Partial<InboxPort>;

/** A Store over `store`'s own backend with `overrides` on each inbox's verbs; closing it closes `store`. */
export function wrapPort(store: Store, overrides: PortOverrides): Store {
  const port = (store as Partial<VigilStore>).port;
  if (port === undefined) throw new VigilError('invalid_options', 'this wraps a store from openStore() or throwawayStore(), not a hand-made Store');
  const wrapped: StorePort = passThrough(port, {
    inbox: (id: string) => {
      const inner = port.inbox(id);
      return passThrough(inner, overrides(inner));
    },
    close: () => store.close(),
  });
  return new VigilStore(wrapped, store.events);
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
