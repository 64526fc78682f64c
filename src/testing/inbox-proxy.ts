/**
 * An Inbox that hands every call to another one: the base the testing kit's
 * wrappers override a few methods of (crash points, recording a turn).
 */
import type {
  ActivityBucket,
  ApprovalAnswer,
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalRow,
  ClaimedEvent,
  DispatchOptions,
  EventQuery,
  EventRow,
  Inbox,
  InboxStats,
  NewEvent,
  OperatorAction,
  OutboxView,
  RunOutcome,
  SendFn,
  TimerRow,
  TimerSpec,
} from '../store/contract.js';

export class InboxProxy implements Inbox {
  constructor(protected readonly inner: Inbox) {}

  get id(): string {
    return this.inner.id;
  }

  ingest(event: NewEvent): Promise<boolean> {
    return this.inner.ingest(event);
  }
  ingestMany(events: readonly NewEvent[]): Promise<boolean[]> {
    return this.inner.ingestMany(events);
  }
  acquire(holder: string): Promise<number | null> {
    return this.inner.acquire(holder);
  }
  release(holder: string, gen: number): Promise<boolean> {
    return this.inner.release(holder, gen);
  }
  claimBatch(holder: string, gen: number): Promise<ClaimedEvent[]> {
    return this.inner.claimBatch(holder, gen);
  }
  finish(holder: string, gen: number, ids: readonly number[], outcome?: RunOutcome): Promise<boolean> {
    return this.inner.finish(holder, gen, ids, outcome);
  }
  addTimer(timer: TimerSpec): Promise<void> {
    return this.inner.addTimer(timer);
  }
  removeTimer(id: string): Promise<boolean> {
    return this.inner.removeTimer(id);
  }
  timers(): Promise<TimerRow[]> {
    return this.inner.timers();
  }
  runScheduler(): Promise<number> {
    return this.inner.runScheduler();
  }
  requestApproval(request: ApprovalRequest): Promise<void> {
    return this.inner.requestApproval(request);
  }
  answerApproval(id: string, answer: ApprovalAnswer): Promise<ApprovalOutcome> {
    return this.inner.answerApproval(id, answer);
  }
  dispatch(send: SendFn, options?: DispatchOptions): Promise<number> {
    return this.inner.dispatch(send, options);
  }
  getSession(): Promise<unknown> {
    return this.inner.getSession();
  }
  getMemory(): Promise<Record<string, unknown>> {
    return this.inner.getMemory();
  }
  getEvent(source: string, sourceId: string): Promise<EventRow | null> {
    return this.inner.getEvent(source, sourceId);
  }
  events(query?: EventQuery): Promise<EventRow[]> {
    return this.inner.events(query);
  }
  redrive(eventId: number): Promise<boolean> {
    return this.inner.redrive(eventId);
  }
  stats(): Promise<InboxStats> {
    return this.inner.stats();
  }
  approvals(query?: { limit?: number }): Promise<ApprovalRow[]> {
    return this.inner.approvals(query);
  }
  outbox(query?: { limit?: number }): Promise<OutboxView> {
    return this.inner.outbox(query);
  }
  activity(query: { since: number; bucketMs: number }): Promise<ActivityBucket[]> {
    return this.inner.activity(query);
  }
  expediteOutbox(): Promise<number> {
    return this.inner.expediteOutbox();
  }
  recordAction(action: Omit<OperatorAction, 'at'>): Promise<void> {
    return this.inner.recordAction(action);
  }
  actions(query?: { limit?: number }): Promise<OperatorAction[]> {
    return this.inner.actions(query);
  }
}
