/**
 * The error a crash point throws: the worker "died" there. Nothing after the
 * point happens, so what the store is left with is what a SIGKILL at that
 * moment would leave: a claimed batch nobody finishes, a run whose result is
 * never recorded, a message sent but not marked as sent.
 */
import type { ClaimedEvent, HeldMessage } from '../store/contract.js';

/**
 * Where a worker can be made to crash (see crashingStore): the eight points
 * the chaos harness kills real processes at (chaos/crash-points.ts), and
 * 'in-effect', inside a side-effect tool's call (contract/effects.ts).
 */
export const CRASH_POINTS = [
  'after-acquire',
  'after-claim',
  'before-finish',
  'in-finish',
  'after-finish',
  'in-dispatch',
  'between-send-and-record',
  'before-release',
  'in-effect',
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];

/** What was in hand when the worker crashed. */
export interface CrashSite {
  point: CrashPoint;
  inboxId: string;
  /** The worker's lease holder; null at the dispatch points (a dispatch has no holder). */
  holder: string | null;
  /** after-claim: the batch just claimed; the finish points: the claimed events being finished (as far as this wrapper saw them claimed). */
  events: readonly ClaimedEvent[];
  /** The finish points: the ids handed to finish; after-claim: the claimed ids. */
  eventIds: readonly number[];
  /** between-send-and-record: the messages that were just sent; in-dispatch: the batch that was being reserved. */
  messages: readonly HeldMessage[];
  /** in-effect: the side-effect call that was started (its idempotency key and tool). */
  effect?: { key: string; tool: string };
}

const BRAND = Symbol.for('vigil.SimulatedCrash');

export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
  readonly [BRAND] = true;
  readonly point: CrashPoint;
  readonly inboxId: string;
  readonly holder: string | null;
  readonly events: readonly ClaimedEvent[];
  readonly eventIds: readonly number[];
  readonly messages: readonly HeldMessage[];
  readonly effect: { key: string; tool: string } | undefined;

  constructor(site: CrashSite, message?: string) {
    const who = site.holder === null ? 'the dispatcher' : `worker ${JSON.stringify(site.holder)}`;
    super(message ?? `simulated crash: ${who} died ${site.point} in inbox ${JSON.stringify(site.inboxId)}`);
    this.point = site.point;
    this.inboxId = site.inboxId;
    this.holder = site.holder;
    this.events = site.events;
    this.eventIds = site.eventIds;
    this.messages = site.messages;
    this.effect = site.effect;
  }
}

/**
 * By brand, not instanceof: a `.ts` agent or test loaded through tsx may
 * hold its own copy of this module, and so its own SimulatedCrash class.
 */
export function isSimulatedCrash(error: unknown): error is SimulatedCrash {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}
