/**
 * Group commit for single-event ingests. Calls for the same inbox that
 * arrive in one turn of the event loop (many webhook deliveries at once)
 * share one transaction and so one flush to disk; each caller's promise
 * resolves only after that commit, so `true` still means durable (R10).
 *
 * A flush is the cost of a durable write (~0.3 ms here against a few µs of
 * SQL), so N deliveries at once cost about one flush instead of N. A lone
 * call waits one event-loop turn (setImmediate) and then commits alone.
 *
 * The commit may be asynchronous (the writer thread, writer-thread.ts): then
 * one group per inbox is committing at a time, and the calls that arrive
 * meanwhile wait and form the next group, committed as soon as it is done.
 * Sending each turn's calls as a group of their own instead would queue
 * many small commits behind the one on disk, one flush each.
 *
 * Rejected, measured: sending each turn's group at once and letting the
 * thread join the groups of an inbox that reached it while it committed.
 * The thread no longer waits for the round trip through this event loop
 * (1.6 ms of a 3.1 ms commit cycle under the service benchmark's load), yet
 * deliveries per second did not rise: transactions held about five groups
 * each, so five times the messages between the threads, and Vigil ÷ durable
 * floor read 0.66–0.81 with it against 0.72–0.84 with one group committing
 * at a time (three paired runs of two rounds each, 2026-12-04).
 */
import type { InboxLimits } from '../contract.js';
import type { IngestResult } from '../engine/quota.js';
import type { CheckedEvent } from '../engine/validate/index.js';

interface Waiting {
  event: CheckedEvent;
  /** Each call's own quota (contract/limits.ts), or null: a group may join calls with and without. */
  quota: InboxLimits | null;
  resolve: (stored: IngestResult) => void;
  reject: (error: unknown) => void;
}

/** An inbox's calls not yet committed; while a commit of the inbox is under way, they are the next group. */
interface Group {
  waiting: Waiting[];
}

export class IngestGroups {
  private readonly groups = new Map<string, Group>();
  /** Groups committed (or refused) so far, and the events in them: for benchmarks. */
  commits = 0;
  events = 0;

  /** `commit` stores the events of one inbox in one transaction, one result per event. */
  constructor(
    private readonly commit: (inboxId: string, events: CheckedEvent[], quotas: (InboxLimits | null)[]) => IngestResult[] | Promise<IngestResult[]>,
  ) {}

  ingest(inboxId: string, event: CheckedEvent, quota: InboxLimits | null = null): Promise<IngestResult> {
    return new Promise((resolve, reject) => {
      let group = this.groups.get(inboxId);
      if (group === undefined) {
        group = { waiting: [] };
        this.groups.set(inboxId, group);
        setImmediate(() => void this.flush(inboxId, group!));
      }
      group.waiting.push({ event, quota, resolve, reject });
    });
  }

  private async flush(inboxId: string, group: Group): Promise<void> {
    const batch = group.waiting;
    group.waiting = [];
    this.commits += 1;
    this.events += batch.length;
    try {
      const results = await this.commit(
        inboxId,
        batch.map((waiting) => waiting.event),
        batch.map((waiting) => waiting.quota),
      );
      batch.forEach((waiting, i) => waiting.resolve(results[i]!));
    } catch (error) {
      // One transaction: nothing of the group was stored, and every caller hears so.
      for (const waiting of batch) waiting.reject(error);
    } finally {
      if (group.waiting.length === 0) this.groups.delete(inboxId);
      // Those that came while it committed: one turn more lets this turn's arrivals join them.
      else setImmediate(() => void this.flush(inboxId, group));
    }
  }
}
