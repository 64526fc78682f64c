/**
 * Plays the people answering approvals: once an ask's approval exists,
 * answer it as planned (yes or no), then answer again the other way, which
 * must change nothing (R8: one answer stands). Approvals planned to expire
 * are never answered: the scheduler's expiry must arrive instead.
 */
import type { ApprovalOutcome, Store } from '../src/store/contract.js';
import { approvalId } from './chaos-agent.js';
import type { PlannedEvent } from './plan.js';

export interface AskRecord {
  inbox: string;
  /** The ask event's sourceId. */
  sourceId: string;
  id: string;
  plan: 'yes' | 'no' | 'expire';
  /** What answerApproval said stands, once it stopped saying 'unknown'. */
  standing: ApprovalOutcome | null;
  /** What the second, opposite answer returned. */
  second: ApprovalOutcome | null;
  /** The ask event was fed: its approval may exist. */
  fed: boolean;
}

export class ApprovalClerk {
  readonly asks: AskRecord[];

  constructor(
    private readonly store: Store,
    plan: readonly PlannedEvent[],
  ) {
    this.asks = plan
      .filter((e) => e.kind === 'ask')
      .map((e) => ({ inbox: e.inbox, sourceId: e.sourceId, id: approvalId(e.sourceId), plan: e.approval!, standing: null, second: null, fed: false }));
    this.byEvent = new Map(plan.filter((e) => e.kind === 'ask').map((e, i) => [`${e.inbox}/${e.sourceId}`, this.asks[i]!]));
  }

  private readonly byEvent: Map<string, AskRecord>;

  /** These events were ingested: their approvals are worth asking about from now on. */
  fed(events: readonly PlannedEvent[]): void {
    for (const e of events) {
      const ask = this.byEvent.get(`${e.inbox}/${e.sourceId}`);
      if (ask !== undefined) ask.fed = true;
    }
  }

  /** Answers every approval that exists now and was not answered yet. */
  async tick(): Promise<void> {
    for (const ask of this.asks) {
      if (ask.plan === 'expire' || ask.standing !== null || !ask.fed) continue;
      const inbox = this.store.inbox(ask.inbox);
      const outcome = await inbox.answerApproval(ask.id, ask.plan);
      if (outcome === 'unknown') continue; // not asked yet: its run has not finished
      ask.standing = outcome;
      ask.second = await inbox.answerApproval(ask.id, ask.plan === 'yes' ? 'no' : 'yes');
    }
  }

  /**
   * Approvals still to answer whose ask may yet be made: its event is not
   * dead (a collateral death, collateral.ts, never asks).
   */
  async waiting(): Promise<number> {
    let waiting = 0;
    for (const ask of this.asks) {
      if (ask.plan === 'expire' || ask.standing !== null) continue;
      const event = await this.store.inbox(ask.inbox).getEvent('chaos', ask.sourceId);
      if (event?.status !== 'dead') waiting += 1;
    }
    return waiting;
  }
}
