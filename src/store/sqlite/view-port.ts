/** The dashboard's reads of one SQLite inbox (engine/port.ts, ViewPort); an inbox never written reads as empty. */
import type { ActivityBucket, ApprovalRow, OperatorAction, OutboxView } from '../contract.js';
import type { ViewPort } from '../engine/port.js';
import type { CheckedActivityQuery } from '../engine/validate/index.js';
import { toActivity } from '../rows.js';
import { activity, listApprovals, outboxView } from './dashboard.js';
import type { InboxFiles } from './inbox-port.js';
import { listActions } from './operator.js';

export class SqliteViewPort implements ViewPort {
  constructor(
    private readonly files: InboxFiles,
    readonly id: string,
  ) {}

  async approvals(limit: number): Promise<ApprovalRow[]> {
    const c = this.files.connection(this.id, false);
    return c === null ? [] : c.read(() => listApprovals(c, limit));
  }

  async outbox(limit: number): Promise<OutboxView> {
    const c = this.files.connection(this.id, false);
    if (c === null) return { held: [], heldCount: 0, sent: [], nextSendAt: null, failed: [] };
    const now = this.files.now();
    return c.read(() => outboxView(c, now, limit));
  }

  async activity(query: CheckedActivityQuery, buckets: (now: number) => number): Promise<ActivityBucket[]> {
    const now = this.files.now();
    const count = buckets(now);
    const c = this.files.connection(this.id, false);
    if (c === null) return toActivity([], query, count);
    return c.read(() => activity(c, query, now, count));
  }

  async actions(limit: number): Promise<OperatorAction[]> {
    const c = this.files.connection(this.id, false);
    return c === null ? [] : c.read(() => listActions(c, limit));
  }
}
