/**
 * The heartbeat holds still while a step renews or ends the lease itself
 * (finishAndClaim): a renewal landing after that step released the lease
 * would take it again under a new generation and report the run's lease lost.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Inbox } from '../../src/index.js';
import { LeaseHeartbeat } from '../../src/runtime/lease-heartbeat.js';

afterEach(() => {
  vi.useRealTimers();
});

/** An inbox whose acquire answers `gen` and counts the calls; `hold` keeps the next answer back until released. */
function leaseInbox(gen: number): { inbox: Inbox; acquires: () => number; hold(): () => void } {
  let count = 0;
  let held: Promise<void> | null = null;
  const inbox = {
    async acquire() {
      count += 1;
      if (held !== null) await held;
      return gen;
    },
  } as unknown as Inbox;
  return {
    inbox,
    acquires: () => count,
    hold() {
      let release!: () => void;
      held = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        held = null;
        release();
      };
    },
  };
}

describe('lease heartbeat', () => {
  it('renews every intervalMs; paused, it renews no more until resumed', async () => {
    vi.useFakeTimers();
    const { inbox, acquires } = leaseInbox(7);
    const heartbeat = new LeaseHeartbeat(inbox, 'W', 7, 100, () => undefined);
    heartbeat.start();
    await vi.advanceTimersByTimeAsync(250);
    expect(acquires()).toBe(2);
    await heartbeat.pause();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(acquires()).toBe(2);
    heartbeat.resume();
    await vi.advanceTimersByTimeAsync(100);
    expect(acquires()).toBe(3);
    await heartbeat.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(acquires()).toBe(3);
  });

  it('pause waits for a renewal in flight, so none lands after the step that follows it', async () => {
    vi.useFakeTimers();
    const { inbox, acquires, hold } = leaseInbox(7);
    const heartbeat = new LeaseHeartbeat(inbox, 'W', 7, 100, () => undefined);
    heartbeat.start();
    const release = hold();
    await vi.advanceTimersByTimeAsync(100); // a renewal is on its way
    expect(acquires()).toBe(1);
    let paused = false;
    const pausing = heartbeat.pause().then(() => {
      paused = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(paused).toBe(false);
    release();
    await pausing;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(acquires()).toBe(1); // and none was scheduled after it
    expect(heartbeat.lost).toBe(false);
  });
});
