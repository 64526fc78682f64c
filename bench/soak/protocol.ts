/**
 * What the worker children tell the parent over IPC, and the one payload
 * every event carries.
 *
 * A delivery is reported before the channel's send resolves, and the send
 * waits until the message is written to the IPC pipe: a reply the store
 * records as sent has reached the parent even if the child is SIGKILLed the
 * next instant (what the kernel holds in the pipe survives the writer).
 */

/** graphile-worker's task identifier for the soak's jobs. */
export const GRAPHILE_TASK = 'reply';

/** Each event's payload (and, unchanged, its reply's body): its number and when it was offered. */
export interface SoakPayload {
  seq: number;
  /** Date.now() at the moment the producer was due to offer it (see load.ts). */
  t: number;
  inbox: string;
}

export type FromChild =
  | { type: 'ready' }
  /** Events a run finished (Vigil: run:finished, graphile: job:success), summed over a short interval. */
  | { type: 'done'; count: number }
  /** One channel send (Vigil: one batch of the outbox; graphile: one job's reply). `id`: the outbox message or the job. */
  | { type: 'delivered'; at: number; messages: { id: number; body: string }[] }
  /** graphile only: the ids this child locks jobs under (its pool's and its workers'), so a supervisor can unlock them after a kill. */
  | { type: 'graphile-workers'; ids: string[] }
  /**
   * Vigil with retention: what one prune call of this child's Pruner removed
   * (store:pruned). Sent after the call committed, so a child SIGKILLed in
   * between loses that report: the parent's sums can fall short, never over.
   */
  | { type: 'pruned'; events: number; messages: number };

/** process.send, resolved once the message is written to the pipe. */
export function sendToParent(message: FromChild): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.send === undefined) {
      reject(new Error('not started with an IPC channel'));
      return;
    }
    process.send(message, undefined, {}, (error: Error | null) => (error === null ? resolve() : reject(error)));
  });
}

/** Sums `done` counts and sends them every 200 ms: one IPC message per run would cost the parent more than the run. */
export function doneCounter(): (count: number) => void {
  let pending = 0;
  const timer = setInterval(() => {
    if (pending === 0) return;
    const count = pending;
    pending = 0;
    sendToParent({ type: 'done', count }).catch(() => undefined);
  }, 200);
  timer.unref();
  return (count) => {
    pending += count;
  };
}
