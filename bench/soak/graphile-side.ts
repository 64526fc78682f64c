/**
 * graphile-worker (0.17) under the same soak, on the same server, in its
 * own schema: the parent adds one job per event at the same offered rate
 * (`addJob('reply', payload, { queueName: inbox, jobKey })`: one job per
 * queue at a time, as Vigil runs one inbox at a time; the same queue
 * layout as the PostgreSQL benchmark), and N processes (graphile-worker.ts)
 * run them with graphile's defaults and a silent logger.
 *
 * The supervisor's part: after a SIGKILL it calls forceUnlockWorkers with
 * the dead process's worker ids, as graphile's documentation asks of
 * whoever knows a worker is gone. Without it the jobs that process held,
 * and their queues, would stay locked for 4 hours (graphile's
 * resetLockedAt), far past the end of any soak. Vigil needs no such call:
 * a dead worker's lease runs out by itself.
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

export async function openGraphileSide(config: SoakConfig, url: string, schema: string, admin: pg.Pool, log: (line: string) => void): Promise<Side> {
  const utils = await makeWorkerUtils({ connectionString: url, schema, logger: quiet });
  await utils.migrate();
  const ledger = new Ledger();
  let unlockCalls = 0;
  let unlockedWorkers = 0;
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
    onStored: () => undefined,
    onGaveUp(payload, error) {
      ledger.gaveUp(payload.seq);
      log(`graphile: gave up adding job ${payload.seq}: ${String(error)}`);
    },
  });
  const fleet = new Fleet({
    side: 'graphile',
    script: WORKER,
    workers: config.workers,
    argFor: (): GraphileWorkerConfig => ({ url, schema, concurrency: config.concurrency }),
    onMessage(message) {
      if (message.type === 'done') ledger.done(message.count);
      else if (message.type === 'delivered') ledger.delivered(message.at, message.messages);
    },
    async onExit(child) {
      if (child.workerIds.length === 0) return;
      await utils.forceUnlockWorkers(child.workerIds);
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
      return [
        {
          name: 'jobs table empty (graphile deletes a job when it completes)',
          value: `${left} left (${row?.locked ?? '?'} locked, ${row?.failed ?? '?'} failed for good)`,
          ok: left === 0,
          invariant: false,
        },
      ];
    },
    supervisorNotes: () => [`forceUnlockWorkers called after ${unlockCalls} kills, for ${unlockedWorkers} worker ids`],
    async close() {
      await utils.release();
    },
  };
}
