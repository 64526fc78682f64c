/**
 * The life cycle of an inbox's data (contract.ts: prune, exportInbox,
 * deleteInbox, importInbox): what the engine decides before a backend
 * runs its SQL. Retention's cutoffs at a transaction's now, the sweep that
 * prunes one inbox at a time and resumes where it stopped, and the
 * refusals both stores give alike.
 */
import { VigilError } from '../../errors.js';
import type { PruneResult } from '../contract.js';
import type { Retention } from '../options.js';
import type { PruneCutoffs, StorePort } from './port.js';

/** A row is past its retention once its age reaches it: finished at t, pruned from t + retention on. */
export function pruneCutoffs(retention: Retention, now: number): PruneCutoffs {
  const cutoff = (ms: number | null): number | null => (ms === null ? null : now - ms);
  return {
    doneEvents: cutoff(retention.doneEventsMs),
    deadEvents: cutoff(retention.deadEventsMs),
    sentMessages: cutoff(retention.sentMessagesMs),
    answeredApprovals: cutoff(retention.answeredApprovalsMs),
    actions: cutoff(retention.actionsMs),
    settledEffects: cutoff(retention.settledEffectsMs),
    usage: cutoff(retention.usageMs),
  };
}

/**
 * One prune transaction's budget across the kinds, taken in order (events,
 * messages, approvals, actions, settled effects, usage): each kind gets what the ones before it
 * left, and a kind that used all it was given may have more (`more`).
 */
export class PruneBudget {
  readonly result: PruneResult = { events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false };

  constructor(private left: number) {}

  /** What the next kind may remove; 0 when nothing is left. */
  get next(): number {
    return this.left;
  }

  took(kind: 'events' | 'messages' | 'approvals' | 'actions' | 'effects' | 'usage', count: number, budget: number): void {
    this.result[kind] = count;
    this.left -= count;
    if (count >= budget) this.result.more = true;
  }
}

export function keepsEverything(retention: Retention): boolean {
  return Object.values(retention).every((ms) => ms === null);
}

/**
 * Prune's walk over the inboxes: a list taken at the start of a sweep,
 * walked across calls, one inbox's transaction at a time, so each call
 * does a bounded amount of work and the next resumes where it stopped.
 * A sweep ends (more: false) when every inbox of its list has nothing
 * past retention left.
 */
export class PruneSweep {
  /** The current sweep's inboxes still to visit, the next last; null between sweeps. */
  private pending: string[] | null = null;

  constructor(private readonly port: StorePort) {}

  async run(limit: number): Promise<PruneResult> {
    const total: PruneResult = { events: 0, messages: 0, approvals: 0, actions: 0, effects: 0, usage: 0, more: false };
    const retention = this.port.options.retention;
    if (keepsEverything(retention)) return total;
    this.pending ??= (await this.port.inboxes()).reverse();
    const pending = this.pending;
    let left = limit;
    while (left > 0 && pending.length > 0) {
      const inboxId = pending[pending.length - 1]!;
      let pruned: PruneResult;
      try {
        pruned = await this.port.inbox(inboxId).prune((now) => pruneCutoffs(retention, now), left);
      } catch (error) {
        // One inbox that cannot be pruned now (busy, unreadable) does not hold up the others: the next sweep tries again.
        pending.pop();
        throw error;
      }
      total.events += pruned.events;
      total.messages += pruned.messages;
      total.approvals += pruned.approvals;
      total.actions += pruned.actions;
      total.effects += pruned.effects;
      total.usage += pruned.usage;
      left -= pruned.events + pruned.messages + pruned.approvals + pruned.actions + pruned.effects + pruned.usage;
      if (!pruned.more) pending.pop();
    }
    total.more = pending.length > 0;
    if (!total.more) this.pending = null;
    return total;
  }
}

export function inboxBusy(inboxId: string): VigilError {
  return new VigilError('inbox_busy', `inbox ${inboxId} is held by a worker (a live lease); try again when its run is over`);
}

export function inboxExists(inboxId: string): VigilError {
  return new VigilError('inbox_exists', `inbox ${inboxId} already holds data; delete it first to import over it`);
}
