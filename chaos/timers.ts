/**
 * The timers of a run: interval timers with missed: 'each' (every
 * occurrence must fire once, none skipped, even while every worker is
 * dead), and one-off timers. At the end of the chaos window the interval
 * timers are stopped: one last scheduler pass, then removal; what fired by
 * then must be every occurrence up to that pass, each once.
 */
import type { Store } from '../src/store/contract.js';
import { inboxName } from './plan.js';

export interface IntervalTimer {
  inbox: string;
  id: string;
  firstDue: number;
  every: number;
  /** Store time (Date.now on this machine) just before the last scheduler pass. */
  stoppedAt: number | null;
}

export interface OneOffTimer {
  inbox: string;
  id: string;
  due: number;
}

export interface TimerPlan {
  intervals: IntervalTimer[];
  oneOffs: OneOffTimer[];
}

export async function addTimers(
  store: Store,
  options: { inboxes: number; intervals: number; every: number; oneOffs: number; windowMs: number },
  random: () => number,
): Promise<TimerPlan> {
  const now = Date.now();
  const intervals: IntervalTimer[] = [];
  for (let i = 0; i < options.intervals; i++) {
    const timer = { inbox: inboxName(i % options.inboxes), id: `tick-${i}`, firstDue: now + options.every, every: options.every, stoppedAt: null };
    await store.inbox(timer.inbox).addTimer({ id: timer.id, due: timer.firstDue, every: timer.every, missed: 'each' });
    intervals.push(timer);
  }
  const oneOffs: OneOffTimer[] = [];
  for (let i = 0; i < options.oneOffs; i++) {
    const timer = { inbox: inboxName(Math.floor(random() * options.inboxes)), id: `once-${i}`, due: now + Math.floor(random() * options.windowMs) };
    await store.inbox(timer.inbox).addTimer({ id: timer.id, due: timer.due });
    oneOffs.push(timer);
  }
  return { intervals, oneOffs };
}

export async function stopIntervals(store: Store, plan: TimerPlan): Promise<void> {
  for (const timer of plan.intervals) {
    const inbox = store.inbox(timer.inbox);
    timer.stoppedAt = Date.now();
    await inbox.runScheduler();
    await inbox.removeTimer(timer.id);
  }
}
