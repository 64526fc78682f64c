/**
 * The work of the PostgreSQL benchmark, the same for Vigil and for
 * graphile-worker: `inboxes` inboxes (graphile: queues) with `perInbox`
 * events (jobs) each, handled by one process with `concurrency` runs in
 * flight, each unit of work leaving one reply row behind. Keys, payloads and
 * the order of calls are fixed here so that both sides see the same ones.
 */

export interface PgPlan {
  inboxes: number;
  perInbox: number;
  /** Runs (graphile: jobs) in flight at once, and ingest calls in flight at once. */
  concurrency: number;
  /** Repetitions; every variant of both sides runs once per repetition, except: */
  reps: number;
  /**
   * graphile-worker with default options runs in the first this-many
   * repetitions only. It takes the longest by far (about 45 s for 10,000
   * jobs here), but the `batchLimit: 1` target (issue 22) is a ratio to it
   * per repetition, so the full plan runs it in every one.
   */
  graphileDefaultReps: number;
}

// Five repetitions: a timed part is 1-2 s, and with three the default claim's ratio to graphile-worker at its best
// moved 1.81x-2.28x per repetition and its median 1.91x-2.03x across runs of unchanged code.
export const PG_FULL_PLAN: PgPlan = { inboxes: 1000, perInbox: 10, concurrency: 8, reps: 5, graphileDefaultReps: 5 };
/** A smoke run of every step; its figures mean nothing. */
export const PG_QUICK_PLAN: PgPlan = { inboxes: 40, perInbox: 5, concurrency: 8, reps: 1, graphileDefaultReps: 1 };

export interface BenchEvent {
  inbox: string;
  sourceId: string;
  /** graphile's job_key: unique across queues, so the inbox is part of it. */
  jobKey: string;
  payload: { inbox: string; n: number; text: string };
}

export const SOURCE = 'bench';
export const TASK = 'reply';

export function inboxName(i: number): string {
  return `inbox-${String(i).padStart(4, '0')}`;
}

/**
 * Every event, in call order: the first event of every inbox, then the
 * second of every inbox, ... so that concurrent calls land on different
 * inboxes, as deliveries from many senders do.
 */
export function benchEvents(plan: PgPlan): BenchEvent[] {
  const events: BenchEvent[] = [];
  for (let n = 0; n < plan.perInbox; n++) {
    for (let i = 0; i < plan.inboxes; i++) {
      const inbox = inboxName(i);
      const sourceId = `msg-${n}`;
      events.push({
        inbox,
        sourceId,
        jobKey: `${inbox}/${sourceId}`,
        payload: { inbox, n, text: `message ${n} for ${inbox}: please look at this when you can` },
      });
    }
  }
  return events;
}

/** The reply a unit of work leaves behind (Vigil: its outbox message; graphile: a row in bench_replies). */
export function replyBody(inbox: string, events: number): string {
  return `handled ${events} message(s) for ${inbox}`;
}

/** Runs `fn` over `items` with `workers` calls in flight at once, in item order. */
export async function inParallel<T>(items: readonly T[], workers: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers, items.length) }, worker));
}
