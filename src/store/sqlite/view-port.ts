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
    return this.files.use(this.id, false, (c) => c.read(() => listApprovals(c, limit))) ?? [];
  }

  async outbox(limit: number): Promise<OutboxView> {
    const now = this.files.now();
    return this.files.use(this.id, false, (c) => c.read(() => outboxView(c, now, limit))) ?? { held: [], heldCount: 0, sent: [], nextSendAt: null, failed: [] };
  }

  async activity(query: CheckedActivityQuery, buckets: (now: number) => number): Promise<ActivityBucket[]> {
    const now = this.files.now();
    const count = buckets(now);
    return this.files.use(this.id, false, (c) => c.read(() => activity(c, query, now, count))) ?? toActivity([], query, count);
  }

  async actions(limit: number): Promise<OperatorAction[]> {
    return this.files.use(this.id, false, (c) => c.read(() => listActions(c, limit))) ?? [];
  }
}
