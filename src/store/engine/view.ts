/** The dashboard's read model of one inbox (contract.ts, InboxView): validated here, read by the backend. */
import type { ActivityBucket, ApprovalRow, InboxView, OperatorAction, OutboxView } from '../contract.js';
import type { ViewPort } from './port.js';
import * as v from './validate/index.js';

export class EngineView implements InboxView {
  constructor(private readonly port: ViewPort) {}

  get id(): string {
    return this.port.id;
  }

  async approvals(query?: { limit?: number }): Promise<ApprovalRow[]> {
    return this.port.approvals(v.validatePageQuery(query));
  }

  async outbox(query?: { limit?: number }): Promise<OutboxView> {
    return this.port.outbox(v.validatePageQuery(query));
  }

  async activity(query: { since: number; bucketMs: number }): Promise<ActivityBucket[]> {
    const checked = v.validateActivityQuery(query);
    return this.port.activity(checked, (now) => v.bucketCount(checked, now));
  }

  async actions(query?: { limit?: number }): Promise<OperatorAction[]> {
    return this.port.actions(v.validatePageQuery(query));
  }
}
