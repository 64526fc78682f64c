/**
 * Vigil's PostgreSQL store on the benchmark's work (postgres-workload.ts),
 * through its public API only: openStore, ingest, readyInboxes, acquire,
 * claimBatch, finish, release. Store defaults (the database's clock, pool
 * of 10) unless a variant says otherwise.
 */
import type pg from 'pg';
import { openStore, type NewEvent, type Store, type StoreOptions } from '../src/index.js';
import { DEFAULTS } from '../src/store/options.js';
import { dropSchema, settle } from './postgres-server.js';
import { benchEvents, inParallel, replyBody, SOURCE, type PgPlan } from './postgres-workload.js';
import { elapsedSeconds, startTimer } from './timing.js';

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
}

async function withStore<T>(url: string, schema: string, admin: pg.Pool, options: StoreOptions, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(url, { ...options, schema });
  try {
    return await fn(store);
  } finally {
    await store.close();
    await dropSchema(admin, schema);
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
 * The end-to-end run: 10,000 events already stored (untimed, one ingestMany
 * per inbox), then `concurrency` runners in one process until every event
 * is done. A runner takes an inbox that readyInboxes() lists and no other
 * runner here holds, acquires it, claims and finishes with one reply per
 * claimed batch, and releases it. It claims again while a claim came back
 * full (batchLimit events): a shorter one took everything pending, and an
 * event arriving later lists the inbox in readyInboxes() again.
 */
export async function vigilRuns(url: string, schema: string, admin: pg.Pool, plan: PgPlan, batchLimit?: number): Promise<RunFigures> {
  const events = benchEvents(plan);
  const options: StoreOptions = batchLimit === undefined ? {} : { batchLimit };
  const limit = batchLimit ?? DEFAULTS.batchLimit;
  return withStore(url, schema, admin, options, async (store) => {
    const byInbox = new Map<string, NewEvent[]>();
    for (const e of events) byInbox.set(e.inbox, [...(byInbox.get(e.inbox) ?? []), { source: SOURCE, sourceId: e.sourceId, payload: e.payload }]);
    for (const [inbox, mine] of byInbox) await store.inbox(inbox).ingestMany(mine);
    await settle(admin, schema);

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
    const runner = async (holder: string): Promise<void> => {
      for (let inboxId = await next(); inboxId !== null; inboxId = await next()) {
        const inbox = store.inbox(inboxId);
        const gen = await inbox.acquire(holder);
        if (gen === null) throw new Error(`${holder} could not acquire ${inboxId}`);
        for (;;) {
          const batch = await inbox.claimBatch(holder, gen);
          if (batch.length === 0) break;
          const ok = await inbox.finish(holder, gen, batch.map((e) => e.id), { messages: [replyBody(inboxId, batch.length)] });
          if (!ok) throw new Error(`${holder}: finish refused on ${inboxId}`);
          runs += 1;
          done += batch.length;
          if (batch.length < limit) break;
        }
        if (!(await inbox.release(holder, gen))) throw new Error(`${holder}: release refused on ${inboxId}`);
        picked.delete(inboxId);
      }
    };
    const started = startTimer();
    await Promise.all(Array.from({ length: plan.concurrency }, (_, i) => runner(`runner-${i}`)));
    const seconds = elapsedSeconds(started);

    const [row] = (
      await admin.query<{ done: number; replies: number }>(
        `SELECT (SELECT count(*)::int FROM ${schema}.events WHERE status = 'done') AS done,
                (SELECT count(*)::int FROM ${schema}.outbox) AS replies`,
      )
    ).rows;
    if (done !== events.length || row?.done !== events.length || row.replies !== runs) {
      throw new Error(`Vigil runs: ${done} events handled, ${row?.done} done, ${row?.replies} replies for ${runs} runs; expected ${events.length}`);
    }
    return { eventsPerSecond: events.length / seconds, runs, seconds };
  });
}
