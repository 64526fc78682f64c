/**
 * One graphile-worker process of the soak: `run()` with one task, `reply`,
 * that does what the Vigil side's agent and channel do together: it hands
 * the job's payload to the parent as the reply (over IPC, as the Vigil
 * channel does) and returns. graphile has no outbox, so the task delivers
 * the reply itself, the way graphile users send from a task; a job whose
 * worker dies after the send and before its completion commits runs (and
 * delivers) again.
 *
 *   node --import tsx bench/soak/graphile-worker.ts '<json GraphileWorkerConfig>'
 *
 * It tells the parent its pool's and workers' ids: a SIGKILLed graphile worker's jobs
 * and queues stay locked for 4 hours unless someone calls
 * forceUnlockWorkers with them, which the parent does as a supervisor would.
 */
import { EventEmitter } from 'node:events';
import { Logger, run, type Task, type WorkerEvents } from 'graphile-worker';
import { doneCounter, GRAPHILE_TASK, sendToParent, type SoakPayload } from './protocol.js';

export interface GraphileWorkerConfig {
  url: string;
  schema: string;
  concurrency: number;
}

const config = JSON.parse(process.argv[2] ?? '') as GraphileWorkerConfig;
process.on('disconnect', () => process.exit(0));

/** graphile logs every completed job at info level: a silent logger keeps the console to the soak's own lines. */
const quiet = new Logger(() => () => undefined);
const events: WorkerEvents = new EventEmitter();
const countDone = doneCounter();
events.on('job:success', () => countDone(1));
// 0.17 locks jobs and queues under the pool's id (getJob passes workerPool.id), not each worker's: report both.
events.on('pool:create', ({ workerPool }) => {
  sendToParent({ type: 'graphile-workers', ids: [workerPool.id] }).catch(() => undefined);
});
events.on('worker:create', ({ worker }) => {
  sendToParent({ type: 'graphile-workers', ids: [worker.workerId] }).catch(() => undefined);
});

const reply: Task = async (payload, helpers) => {
  const { seq, t, inbox } = payload as SoakPayload;
  await sendToParent({ type: 'delivered', at: Date.now(), messages: [{ id: Number(helpers.job.id), body: JSON.stringify({ seq, t, inbox }) }] });
};

await run({
  connectionString: config.url,
  schema: config.schema,
  concurrency: config.concurrency,
  noHandleSignals: true,
  logger: quiet,
  events,
  taskList: { [GRAPHILE_TASK]: reply },
});
await sendToParent({ type: 'ready' });
