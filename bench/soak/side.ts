/**
 * One system under the soak (Vigil, or graphile-worker as its peer): the
 * producer that offers it events, the worker processes that run them, the
 * book of what came back, where its data lives, and the final look at its
 * store. The phases and the sampler treat every side alike.
 */
import type { Fleet } from './fleet.js';
import type { Ledger } from './ledger.js';
import type { Producer } from './load.js';
import type { DirStorage, PgStorage } from './storage.js';

export type SideKey = 'vigil' | 'graphile';

export const SIDE_LABELS: Record<SideKey, string> = { vigil: 'Vigil', graphile: 'graphile-worker' };

export type SideStorage = ({ kind: 'postgres' } & PgStorage) | ({ kind: 'sqlite' } & DirStorage);

/** One line of the end-of-run look at a store: what was checked, what was found, whether it holds. */
export interface StoreFinding {
  name: string;
  value: string;
  ok: boolean;
  /** Breaks the run (exit 1) when not ok; otherwise reported only. */
  invariant: boolean;
}

export interface Side {
  readonly key: SideKey;
  readonly ledger: Ledger;
  readonly producer: Producer;
  readonly fleet: Fleet;
  storage(): Promise<SideStorage>;
  /** Once the load has stopped and the backlog is delivered (or the drain gave up): the store's own account. */
  findings(): Promise<StoreFinding[]>;
  /** What the side did for its workers besides restarting them (graphile: jobs unlocked after kills). */
  supervisorNotes(): string[];
  /**
   * Vigil with --retention: rows pruned so far as the workers reported them
   * (prunedEvents, prunedMessages) and, where one query counts them, the
   * tombstones; what the retention tick hook adds to each sample.
   */
  retention?: () => Promise<Record<string, number>>;
  close(): Promise<void>;
}
