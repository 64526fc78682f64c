/**
 * Named places where a worker process dies, armed one at a time by the
 * parent over IPC. An armed point fires the next time the worker passes
 * it, then disarms:
 *
 *   after-acquire            the lease is granted, the worker never uses it
 *   after-claim              the batch is claimed (attempt counted), never run
 *   before-finish            the agent ran, its outcome is never recorded
 *   in-finish                the parent is asked to SIGKILL us, and finish goes
 *                            on: the signal lands somewhere in or just after it
 *                            (on PostgreSQL, inside its transaction)
 *   after-finish             finish committed; the worker dies before it returns
 *   in-dispatch              as in-finish, around dispatch
 *   between-send-and-record  the channel took the batch; the store never records it
 *   before-release           the turn is over; the lease is never released
 *
 * Dying is a real SIGKILL of the process, never an exception: nothing
 * after the point runs, no finally block, no flush.
 */
import type { Journal } from './journal.js';

export const CHAOS_POINTS = [
  'after-acquire',
  'after-claim',
  'before-finish',
  'in-finish',
  'after-finish',
  'in-dispatch',
  'between-send-and-record',
  'before-release',
] as const;

export type ChaosPoint = (typeof CHAOS_POINTS)[number];

/** Points where the parent does the killing, asked by the worker, so the signal arrives mid-call. */
const ASK_PARENT = new Set<ChaosPoint>(['in-finish', 'in-dispatch']);

export class CrashPoints {
  private readonly armed = new Set<ChaosPoint>();

  constructor(
    private readonly journal: Journal,
    private readonly holder: string,
  ) {}

  arm(point: ChaosPoint): void {
    this.armed.add(point);
  }

  disarm(): void {
    this.armed.clear();
  }

  /** Dies here if `point` is armed. Resolves (after asking the parent) for the in- points; never returns for the others. */
  async pass(point: ChaosPoint, inbox: string | null): Promise<void> {
    if (!this.armed.delete(point)) return;
    this.journal.write({ k: 'crash', holder: this.holder, point, inbox });
    if (ASK_PARENT.has(point) && process.send !== undefined) {
      process.send({ type: 'kill-me', point });
      return;
    }
    await dieNow();
  }
}

/** SIGKILL this process; the promise never settles (the process is gone). */
export function dieNow(): Promise<never> {
  process.kill(process.pid, 'SIGKILL');
  return new Promise<never>(() => undefined);
}
