/**
 * Vigil's PostgreSQL store on the benchmark's work (postgres-workload.ts),
 * through its public API only: openStore, ingest, readyInboxes, acquire,
 * claimBatch, finish, release. Store defaults (the database's clock, pool
 * of 10) unless a variant says otherwise.
 */
import type pg from 'pg';
import { openStore, type NewEvent, type RunOutcome, type Store, type StoreOptions } from '../src/index.js';
import { STORE_DEFAULTS } from '../src/store/index.js';
import { dropSchema, settle, settledCounters, workSince, type ServerWork } from './postgres-server.js';
import { benchEvents, inParallel, replyBody, SOURCE, type PgPlan } from './postgres-workload.js';
import { elapsedSeconds, startTimer } from './timing.js';

/** The server's clock in ms, as the store reads it (R13), for the check that no lease is left held. */
const DB_NOW = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

export interface IngestFigures {
  /** 10,000 new events, one ingest call each. */
  ingestPerSecond: number;
  /** The same keys again: every call a duplicate. */
  duplicatePerSecond: number;
}

export interface RunFigures {
  eventsPerSecond: number;
  runs: number;
  seconds: number;
  /** What the server did for the timed part: WAL flushes and commits (postgres-server.ts, ServerWork). */
  work: ServerWork;
  /** CPU time (ms) of this process (the side's client: runners, driver) in the timed part. */
  clientCpuMs: number;
}

async function withStore<T>(
  url: string,
  schema: string,
  admin: pg.Pool,
  options: StoreOptions,
  fn: (store: Store) => Promise<T>,
  { keepSchema = false } = {},
): Promise<T> {
  const store = await openStore(url, { ...options, schema });
  let kept = false;
  try {
    const value = await fn(store);
    kept = keepSchema;
    return value;
  } finally {
    await store.close();
    if (!kept) await dropSchema(admin, schema);
  }
}

export async function vigilIngest(url: string, schema: string, admin: pg.Pool, plan: PgPlan): Promise<IngestFigures> {
  const events = benchEvents(plan);
  return withStore(url, schema, admin, {}, async (store) => {
    const pass = async (expectStored: boolean): Promise<number> => {
      const started = startTimer();
      await inParallel(events, plan.concurrency, async (e) => {
        const stored = await store.inbox(e.inbox).ingest({ source: SOURCE, sourceId: e.sourceId, payload: e.payload });
        if (stored !== expectStored) throw new Error(`Vigil ingest of ${e.jobKey}: expected stored=${expectStored}, got ${stored}`);
      });
      return events.length / elapsedSeconds(started);
    };
    await settle(admin, schema);
    const ingestPerSecond = await pass(true);
    const duplicatePerSecond = await pass(false);
    const [row] = (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.events`)).rows;
    if (row?.n !== events.length) throw new Error(`Vigil stored ${row?.n} events, expected ${events.length}`);
    return { ingestPerSecond, duplicatePerSecond };
  });
}

/**
 * How a runner drives one inbox's run (contract.ts):
 *   * 'steps': acquireAndClaim, then finishAndClaim with one reply per
 *     claimed batch until it claims nothing (that call also releases the
 *     lease): what the worker pool does, two calls for a run of one batch;
 *   * 'separate': acquire, claimBatch, finish, claiming again while a claim
 *     came back full (batchLimit events), then release: the same work in
 *     the calls each rule has on its own, four calls for a run of one batch.
 */
export type RunCalls = 'steps' | 'separate';

/**
 * The end-to-end runs' events, stored in a fresh schema (untimed, one
 * ingestMany per inbox) through a store of its own, closed before the timed
 * part: its connections report their counters when they close, so the
 * server's counters around the timed part hold the runs' work alone. The
 * schema is kept for the timed part (postgres-floor-side.ts runs on it too).
 */
export async function seedRuns(url: string, schema: string, admin: pg.Pool, plan: PgPlan): Promise<void> {
  await withStore(url, schema, admin, {}, async (store) => {
    const byInbox = new Map<string, NewEvent[]>();
    for (const e of benchEvents(plan)) byInbox.set(e.inbox, [...(byInbox.get(e.inbox) ?? []), { source: SOURCE, sourceId: e.sourceId, payload: e.payload }]);
    for (const [inbox, mine] of byInbox) await store.inbox(inbox).ingestMany(mine);
  }, { keepSchema: true });
}

/**
 * The end-to-end run: 10,000 events already stored (untimed, one ingestMany
 * per inbox), then `concurrency` runners in one process until every event
 * is done. A runner takes an inbox that readyInboxes() lists and no other
 * runner here holds and runs it (RunCalls says with which calls); an event
 * arriving later lists the inbox in readyInboxes() again.
 */
export async function vigilRuns(url: string, schema: string, admin: pg.Pool, plan: PgPlan, calls: RunCalls, batchLimit?: number): Promise<RunFigures> {
  const options: StoreOptions = batchLimit === undefined ? {} : { batchLimit };
  await seedRuns(url, schema, admin, plan);
  try {
    const { before, ...figures } = await withStore(url, schema, admin, options, (store) => timedRuns(store, admin, schema, plan, calls, batchLimit), { keepSchema: true });
    return { ...figures, work: workSince(before, await settledCounters(admin)) };
  } finally {
    await dropSchema(admin, schema);
  }
}

async function timedRuns(
  store: Store,
  admin: pg.Pool,
  schema: string,
  plan: PgPlan,
  calls: RunCalls,
  batchLimit: number | undefined,
): Promise<Omit<RunFigures, 'work'> & { before: ServerWork }> {
  const events = benchEvents(plan);
  const limit = batchLimit ?? STORE_DEFAULTS.batchLimit;
  await settle(admin, schema);
  const before = await settledCounters(admin);

  const picked = new Set<string>();
  const queue: string[] = [];
  let polling: Promise<void> | null = null;
  let runs = 0;
  let done = 0;
  /** The next inbox to run, or null when readyInboxes lists nothing that is not already being run. */
  const next = async (): Promise<string | null> => {
    for (;;) {
      const inbox = queue.shift();
      if (inbox !== undefined) return inbox;
      const wasPolling = polling !== null;
      polling ??= (async () => {
        const ready = await store.readyInboxes({ limit: 100 });
        for (const id of ready) {
          if (!picked.has(id)) {
            picked.add(id);
            queue.push(id);
          }
        }
      })().finally(() => {
        polling = null;
      });
      await polling;
      if (queue.length === 0 && !wasPolling) return null;
    }
  };
  const reply = (inboxId: string, batch: readonly { id: number }[]): [number[], RunOutcome] => [batch.map((e) => e.id), { messages: [replyBody(inboxId, batch.length)] }];
  const runSteps = async (holder: string, inboxId: string): Promise<void> => {
    const inbox = store.inbox(inboxId);
    const run = await inbox.acquireAndClaim(holder);
    if (run === null) throw new Error(`${holder} could not acquire ${inboxId}`);
    for (let batch = run.events; batch.length > 0; ) {
      const next = await inbox.finishAndClaim(holder, run.gen, ...reply(inboxId, batch));
      if (!next.finished) throw new Error(`${holder}: finish refused on ${inboxId}`);
      runs += 1;
      done += batch.length;
      batch = next.events;
    }
  };
  const runSeparately = async (holder: string, inboxId: string): Promise<void> => {
    const inbox = store.inbox(inboxId);
    const gen = await inbox.acquire(holder);
    if (gen === null) throw new Error(`${holder} could not acquire ${inboxId}`);
    for (;;) {
      const batch = await inbox.claimBatch(holder, gen);
      if (batch.length === 0) break;
      if (!(await inbox.finish(holder, gen, ...reply(inboxId, batch)))) throw new Error(`${holder}: finish refused on ${inboxId}`);
      runs += 1;
      done += batch.length;
      if (batch.length < limit) break;
    }
    if (!(await inbox.release(holder, gen))) throw new Error(`${holder}: release refused on ${inboxId}`);
  };
  const runner = async (holder: string): Promise<void> => {
    for (let inboxId = await next(); inboxId !== null; inboxId = await next()) {
      await (calls === 'steps' ? runSteps(holder, inboxId) : runSeparately(holder, inboxId));
      picked.delete(inboxId);
    }
  };
  const started = startTimer();
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: plan.concurrency }, (_, i) => runner(`runner-${i}`)));
  const seconds = elapsedSeconds(started);
  const used = process.cpuUsage(cpu);

  const [row] = (
    await admin.query<{ done: number; replies: number; held: number }>(
      `SELECT (SELECT count(*)::int FROM ${schema}.events WHERE status = 'done') AS done,
              (SELECT count(*)::int FROM ${schema}.outbox) AS replies,
              (SELECT count(*)::int FROM ${schema}.inboxes WHERE lease_until >= ${DB_NOW}) AS held`,
    )
  ).rows;
  if (done !== events.length || row?.done !== events.length || row.replies !== runs || row.held !== 0) {
    throw new Error(
      `Vigil runs: ${done} events handled, ${row?.done} done, ${row?.replies} replies for ${runs} runs, ${row?.held} leases still held; expected ${events.length}`,
    );
  }
  return { eventsPerSecond: events.length / seconds, runs, seconds, before, clientCpuMs: (used.user + used.system) / 1000 };
}
