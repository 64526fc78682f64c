/** The dashboard's reads of one inbox on PostgreSQL (engine/port.ts, ViewPort), each one statement through an index (dashboard.ts). */
import type { ActivityBucket, ApprovalRow, OperatorAction, OutboxRow, OutboxView } from '../contract.js';
import type { ViewPort } from '../engine/port.js';
import type { CheckedActivityQuery } from '../engine/validate/index.js';
import {
  toActivity,
  toApprovalRow,
  toOperatorAction,
  toOutboxFailure,
  toOutboxRow,
  type ActionRecord,
  type ActivityRecord,
  type ApprovalRecord,
  type FailureRecord,
  type OutboxRecord,
} from '../rows.js';
import { ACTIVITY, FAILED, HELD_COUNT, LIST_APPROVALS, NEXT_SEND_AT, OUTBOX_VIEW, STORE_NOW } from './dashboard.js';
import type { InboxBackend } from './inbox-port.js';
import { LIST_ACTIONS } from './operator.js';

export class PostgresViewPort implements ViewPort {
  constructor(
    private readonly db: InboxBackend,
    readonly id: string,
  ) {}

  async approvals(limit: number): Promise<ApprovalRow[]> {
    return (await this.db.query<ApprovalRecord>(LIST_APPROVALS, [this.id, limit])).map(toApprovalRow);
  }

  async outbox(limit: number): Promise<OutboxView> {
    const [rows, failures] = await Promise.all([
      this.db.query<OutboxRecord & { part: 'held' | 'sent' }>(OUTBOX_VIEW, [this.id, limit]),
      this.db.query<FailureRecord>(FAILED, [this.id, limit]),
    ]);
    const failed = failures.map(toOutboxFailure);
    const held = rows.filter((row) => row.part === 'held').map(toOutboxRow);
    if (held.length === 0) return { held, heldCount: 0, sent: sentFirst(rows), nextSendAt: null, failed };
    const [work] = await this.db.query<{ send_at: number | null }>(NEXT_SEND_AT, [this.id]);
    const heldCount = held.length < limit ? held.length : (await this.db.query<{ n: number }>(HELD_COUNT, [this.id]))[0]!.n;
    return { held: held.sort((a, b) => a.id - b.id), heldCount, sent: sentFirst(rows), nextSendAt: work?.send_at ?? null, failed };
  }

  async activity(query: CheckedActivityQuery, buckets: (now: number) => number): Promise<ActivityBucket[]> {
    const now = this.db.appNow() ?? (await this.db.query<{ now: number }>(STORE_NOW, [null]))[0]!.now;
    const count = buckets(now);
    if (count === 0) return [];
    const rows = await this.db.queryByIndex<ActivityRecord>(ACTIVITY, [this.id, query.since, query.bucketMs, now]);
    return toActivity(rows, query, count);
  }

  async actions(limit: number): Promise<OperatorAction[]> {
    return (await this.db.query<ActionRecord>(LIST_ACTIONS, [this.id, limit])).map(toOperatorAction);
  }
}

/** The sent part of an outbox view, newest first. */
function sentFirst(rows: (OutboxRecord & { part: 'held' | 'sent' })[]): OutboxRow[] {
  return rows
    .filter((row) => row.part === 'sent')
    .map(toOutboxRow)
    .sort((a, b) => (b.sentAt ?? 0) - (a.sentAt ?? 0) || b.id - a.id);
}
