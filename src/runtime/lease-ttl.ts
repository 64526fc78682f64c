/**
 * The lease TTL a worker pool or a dispatcher times itself by: the store's
 * own (Store.leaseTtlMs). The pool renews its leases at a third of it and the
 * dispatcher ends each send within a quarter of it, so a second figure that
 * disagreed would be dangerous: a pool told 120 s on a store whose leases
 * last 10 s would renew every 40 s, long after its lease had lapsed, and
 * another worker would run the same events again (a second reply to the
 * customer). A value given as well must therefore be the store's.
 */
import { VigilError } from '../errors.js';
import type { Store } from '../store/contract.js';
import { STORE_DEFAULTS } from '../store/index.js';

export function leaseTtlOf(who: string, store: Store, given: number | undefined): number {
  const own = (store as { leaseTtlMs?: number } | null)?.leaseTtlMs;
  if (given !== undefined && own !== undefined && given !== own) {
    throw new VigilError('invalid_options', `${who}: leaseTtlMs (${String(given)}) is not the store's (${own}); leave it out, it is read from the store`);
  }
  // A store written before Store.leaseTtlMs existed (plain JavaScript) has the stores' default.
  return given ?? own ?? STORE_DEFAULTS.leaseTtlMs;
}
