/**
 * One inbox's write verbs cut off before their COMMIT (../seam.ts): the
 * same port code over the same file, on a connection whose every write
 * transaction runs whole and then rolls back, as a process killed at that
 * moment would leave it. Nothing of it reaches the ready index or a
 * subscriber.
 */
import type { InboxPort, StorePort } from '../engine/port.js';
import type { InboxDb } from './inbox-db.js';
import { SqliteInboxPort, type InboxFiles } from './inbox-port.js';
import { SqliteStore } from './sqlite-store.js';

export function cutBeforeCommit(port: StorePort, inboxId: string): InboxPort {
  if (!(port instanceof SqliteStore)) throw new TypeError('not a SQLite store');
  const files: InboxFiles = {
    use: (id, create, fn, options) => port.use(id, create, (c) => fn(rollingBack(c)), options),
    now: () => port.now(),
    wake: () => undefined,
    storeEvents: () => Promise.reject(new TypeError('events are not stored by a cut verb')),
  };
  return new SqliteInboxPort(files, inboxId);
}

/** `c`, with every write transaction rolled back at its end instead of committed. */
function rollingBack(c: InboxDb): InboxDb {
  return new Proxy(c, {
    get(target, property) {
      if (property === 'write') return (fn: (now: number) => unknown) => target.writeThenRollBack(fn);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
