/**
 * graphile-worker (0.17) on the benchmark's work (postgres-workload.ts): each
 * event is a job of task `reply` with queue_name = its inbox (graphile runs
 * one job per queue at a time) and job_key = inbox/sourceId. The task does
 * what a Vigil run does with its reply: one INSERT of one row into a table
 * on the same server (`bench_replies`: identity primary key, queue name,
 * job key, body, created_at; the same shape as Vigil's outbox row), in its
 * own transaction, through the job's helpers.query.
 */
import type pg from 'pg';
import { Logger, makeWorkerUtils, run, type Task, type WorkerUtils } from 'graphile-worker';
import { dropSchema, settle, settledCounters, workSince } from './postgres-server.js';
import { benchEvents, inParallel, replyBody, TASK, type PgPlan } from './postgres-workload.js';
import type { IngestFigures, RunFigures } from './vigil-postgres-side.js';
import { elapsedSeconds, startTimer } from './timing.js';

/** Graphile logs every completed job at info level: a silent logger keeps console output out of its figures. */
const quiet = new Logger(() => () => undefined);

/** graphile-worker's documented batching options (https://worker.graphile.org/docs/performance#batching). */
export const BATCHED_PRESET = { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0 } };

async function withUtils<T>(url: string, schema: string, admin: pg.Pool, fn: (utils: WorkerUtils) => Promise<T>): Promise<T> {
  const utils = await makeWorkerUtils({ connectionString: url, schema, logger: quiet });
  try {
    await utils.migrate();
    return await fn(utils);
  } finally {
    await utils.release();
    await dropSchema(admin, schema);
  }
}

async function jobCount(admin: pg.Pool, schema: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}._private_jobs`);
  return rows[0]?.n ?? -1;
}

/** addJob once per event with its job_key and jobKeyMode 'unsafe_dedupe'; then the same keys again. */
export async function graphileAddJob(url: string, schema: string, admin: pg.Pool, plan: PgPlan): Promise<IngestFigures> {
  const events = benchEvents(plan);
  return withUtils(url, schema, admin, async (utils) => {
    const pass = async (): Promise<number> => {
      const started = startTimer();
      await inParallel(events, plan.concurrency, async (e) => {
        await utils.addJob(TASK, e.payload, { queueName: e.inbox, jobKey: e.jobKey, jobKeyMode: 'unsafe_dedupe' });
      });
      return events.length / elapsedSeconds(started);
    };
    await settle(admin, schema);
    const ingestPerSecond = await pass();
    const duplicatePerSecond = await pass();
    const stored = await jobCount(admin, schema);
    if (stored !== events.length) throw new Error(`graphile stored ${stored} jobs, expected ${events.length}`);
    return { ingestPerSecond, duplicatePerSecond };
  });
}

/**
 * The end-to-end run: 10,000 jobs already stored (untimed, addJobs in
 * batches of 1,000), then one runner with concurrency = the plan's, from
 * run() until the jobs table is empty (every completion committed).
 */
export async function graphileRuns(url: string, schema: string, admin: pg.Pool, plan: PgPlan, batched: boolean): Promise<RunFigures> {
  const events = benchEvents(plan);
  return withUtils(url, schema, admin, async (utils) => {
    await admin.query(
      `CREATE TABLE ${schema}.bench_replies (
         id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
         queue_name text NOT NULL,
         job_key text NOT NULL,
         body text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now())`,
    );
    for (let i = 0; i < events.length; i += 1000) {
      await utils.addJobs(events.slice(i, i + 1000).map((e) => ({ identifier: TASK, payload: e.payload, queueName: e.inbox, jobKey: e.jobKey })));
    }
    await settle(admin, schema);
    const before = await settledCounters(admin);

    let succeeded = 0;
    let allSucceeded: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      allSucceeded = resolve;
    });
    const reply: Task = async (payload, helpers) => {
      const { inbox } = payload as { inbox: string };
      await helpers.query(`INSERT INTO ${schema}.bench_replies (queue_name, job_key, body) VALUES ($1, $2, $3)`, [
        inbox,
        helpers.job.key,
        replyBody(inbox, 1),
      ]);
      if (++succeeded === events.length) allSucceeded();
    };

    const started = startTimer();
    const cpu = process.cpuUsage();
    const runner = await run({
      connectionString: url,
      schema,
      concurrency: plan.concurrency,
      noHandleSignals: true,
      logger: quiet,
      taskList: { [TASK]: reply },
      ...(batched ? { preset: BATCHED_PRESET } : {}),
    });
    let seconds: number;
    let used: NodeJS.CpuUsage;
    try {
      await withDeadline(finished, 300_000, 'graphile: not every job succeeded within 300 s');
      // A task has returned for every job; the run is over when every completion is committed.
      for (let i = 0; (await jobCount(admin, schema)) > 0; i++) {
        if (i > 10_000) throw new Error('graphile: jobs still in the table 50 s after the last task returned');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      seconds = elapsedSeconds(started);
      used = process.cpuUsage(cpu);
    } finally {
      await runner.stop();
    }
    // run()'s connections are closed: their counters are in.
    const work = workSince(before, await settledCounters(admin));
    const { rows } = await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.bench_replies`);
    if (rows[0]?.n !== events.length) throw new Error(`graphile wrote ${rows[0]?.n} replies, expected ${events.length}`);
    return { eventsPerSecond: events.length / seconds, runs: events.length, seconds, work, clientCpuMs: (used.user + used.system) / 1000 };
  });
}

async function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
