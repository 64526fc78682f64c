/**
 * graphile-worker (0.17) under the same soak, on the same server, in its
 * own schema: the parent adds one job per event at the same offered rate
 * (`addJob('reply', payload, { queueName: inbox, jobKey })`: one job per
 * queue at a time, as Vigil runs one inbox at a time; the same queue
 * layout as the PostgreSQL benchmark), and N processes (graphile-worker.ts)
 * run them with graphile's defaults and a silent logger.
 *
 * The supervisor's part: after a SIGKILL it calls forceUnlockWorkers with
 * the ids the dead process locked jobs under (in 0.17 its pool's id, not
 * its workers': unlocking only the workers' ids left queues stuck in a
 * smoke run), as graphile's documentation asks of whoever knows a worker
 * is gone. Without it the jobs that process held, and their queues, would
 * stay locked for 4 hours (graphile's resetLockedAt), far past the end of
 * any soak. It first waits until the dead process's sessions are gone from
 * the server (each child connects under its own application_name): a job
 * fetch the process sent just before it died may still commit its lock
 * after the process is gone, and an unlock that ran before that commit
 * would leave that job and its queue locked. Vigil needs no such call: a
 * dead worker's lease runs out by itself.
 */
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { Logger, makeWorkerUtils } from 'graphile-worker';
import type { SoakConfig } from './config.js';
import { Fleet } from './fleet.js';
import type { GraphileWorkerConfig } from './graphile-worker.js';
import { Ledger } from './ledger.js';
import { Producer, withRetries } from './load.js';
import { GRAPHILE_TASK } from './protocol.js';
import type { Side, StoreFinding } from './side.js';
import { pgStorage } from './storage.js';

const WORKER = fileURLToPath(new URL('./graphile-worker.ts', import.meta.url));
const quiet = new Logger(() => () => undefined);
/** How long the supervisor waits for a dead process's sessions to end before it unlocks anyway. */
const SESSIONS_GONE_MS = 30_000;

function applicationName(child: string): string {
  return `soak-${child}`;
}

function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.toString();
}

/** Waits until no session of `name` is left on the server (their transactions are over), at most `ms`; false if some still were. */
async function sessionsGone(admin: pg.Pool, name: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [name]);
    if ((rows[0]?.n ?? 0) === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function openGraphileSide(config: SoakConfig, url: string, schema: string, admin: pg.Pool, log: (line: string) => void): Promise<Side> {
  const utils = await makeWorkerUtils({ connectionString: url, schema, logger: quiet });
  await utils.migrate();
  const ledger = new Ledger();
  let unlockCalls = 0;
  let unlockedWorkers = 0;
  let unlockedEarly = 0;
  /** Worker ids unlocked so far. */
  const known = new Set<string>();
  const producer = new Producer({
    inboxes: config.inboxes,
    maxInFlight: 32,
    async submit(payload) {
      ledger.offer(payload.seq, payload.t);
      const { failures } = await withRetries(20, () =>
        utils.addJob(GRAPHILE_TASK, payload, { queueName: payload.inbox, jobKey: `${payload.inbox}/${payload.seq}` }),
      );
      ledger.stored(payload.seq, { duplicate: false, afterFailure: failures > 0 });
    },
    onGaveUp(payload, error) {
      ledger.gaveUp(payload.seq);
      log(`graphile: gave up adding job ${payload.seq}: ${String(error)}`);
    },
  });
  const fleet = new Fleet({
    side: 'graphile',
    script: WORKER,
    workers: config.workers,
    argFor: (name): GraphileWorkerConfig => ({ url: withApplicationName(url, applicationName(name)), schema, concurrency: config.concurrency }),
    onMessage(message) {
      if (message.type === 'done') ledger.done(message.count);
      else if (message.type === 'delivered') ledger.delivered(message.at, message.messages);
    },
    async onExit(child) {
      if (child.workerIds.length === 0) return;
      if (!(await sessionsGone(admin, applicationName(child.name), SESSIONS_GONE_MS))) unlockedEarly += 1;
      await utils.forceUnlockWorkers(child.workerIds);
      for (const id of child.workerIds) known.add(id);
      unlockCalls += 1;
      unlockedWorkers += child.workerIds.length;
    },
    log,
  });

  return {
    key: 'graphile',
    ledger,
    producer,
    fleet,
    async storage() {
      return { kind: 'postgres', ...(await pgStorage(admin, schema)) };
    },
    async findings(): Promise<StoreFinding[]> {
      const [row] = (
        await admin.query<{ left: number; locked: number; failed: number }>(
          `SELECT count(*)::int AS left, count(*) FILTER (WHERE locked_at IS NOT NULL)::int AS locked,
                  count(*) FILTER (WHERE attempts >= max_attempts)::int AS failed
             FROM ${schema}._private_jobs`,
        )
      ).rows;
      const left = row?.left ?? -1;
      // Who holds what is still locked: a worker id the supervisor never heard of, or one it unlocked too early.
      const holders = (
        await admin.query<{ locked_by: string; jobs: number }>(
          `SELECT locked_by, count(*)::int AS jobs FROM ${schema}._private_jobs WHERE locked_at IS NOT NULL GROUP BY 1
           UNION ALL SELECT 'queue:' || locked_by, count(*)::int FROM ${schema}._private_job_queues WHERE locked_at IS NOT NULL GROUP BY 1`,
        )
      ).rows.map((r) => `${r.locked_by} (${r.jobs}${known.has(r.locked_by.replace(/^queue:/, '')) ? ', unlocked before' : ', never reported'})`);
      return [
        {
          name: 'jobs table empty (graphile deletes a job when it completes)',
          value: `${left} left (${row?.locked ?? '?'} locked, ${row?.failed ?? '?'} failed for good)` + (holders.length > 0 ? `; locked by ${holders.join(', ')}` : ''),
          ok: left === 0,
          invariant: false,
        },
      ];
    },
    supervisorNotes: () => [
      `forceUnlockWorkers called for ${unlockCalls} dead processes (the kills, and the stop at the end), with ${unlockedWorkers} pool and worker ids` +
        (unlockedEarly > 0 ? `; ${unlockedEarly} times their sessions were still on the server after ${SESSIONS_GONE_MS / 1000} s` : ''),
    ],
    async close() {
      await utils.release();
    },
  };
}
