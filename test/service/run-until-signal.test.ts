/**
 * runUntilSignal listens from the moment it is called, so a SIGTERM that
 * arrives while the service is still starting (after it logged its
 * address, say) drains it once it has started, instead of meeting Node's
 * default handler, which kills the process. The signals come from an
 * emitter of the test's own, so no signal reaches the test runner.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runUntilSignal } from '../../src/service/run-until-signal.js';
import type { Service } from '../../src/service/service.js';

/** The two parts of a service runUntilSignal uses: its logger, and stop(), recorded. */
function serviceThatRecordsStops(): { service: Service; stops: number[] } {
  const stops: number[] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const service = { logger, stop: async (graceMs: number) => void stops.push(graceMs) } as unknown as Service;
  return { service, stops };
}

/** The exit code, or 'still waiting' when the promise has not settled within a second. */
function within(exit: Promise<number>): Promise<number | 'still waiting'> {
  return Promise.race([exit, sleep(1_000).then(() => 'still waiting' as const)]);
}

describe('runUntilSignal', () => {
  it('a SIGTERM while the service is still starting drains it once it has started, and exits 0', async () => {
    const signals = new EventEmitter();
    const { service, stops } = serviceThatRecordsStops();
    let started!: (service: Service) => void;
    const exit = runUntilSignal(new Promise<Service>((resolve) => (started = resolve)), 5_000, signals);
    signals.emit('SIGTERM', 'SIGTERM');
    await sleep(20);
    expect(stops).toEqual([]); // nothing to stop yet
    started(service);
    expect(await within(exit)).toBe(0);
    expect(stops).toEqual([5_000]);
  });

  it('a SIGTERM during a start-up that fails exits 1, stopping nothing', async () => {
    const signals = new EventEmitter();
    let failed!: (error: Error) => void;
    const starting = new Promise<Service>((_, reject) => (failed = reject));
    starting.catch(() => undefined); // the caller reports the failure (serve.ts awaits the same promise)
    const exit = runUntilSignal(starting, 5_000, signals);
    signals.emit('SIGTERM', 'SIGTERM');
    failed(new Error('port in use'));
    expect(await within(exit)).toBe(1);
  });

  it('a second, different signal while draining exits at once with 128 + its number', async () => {
    const signals = new EventEmitter();
    const { service } = serviceThatRecordsStops();
    (service as unknown as { stop: () => Promise<void> }).stop = () => new Promise(() => undefined); // a drain that never ends
    const exit = runUntilSignal(Promise.resolve(service), 5_000, signals);
    await sleep(0);
    signals.emit('SIGTERM', 'SIGTERM');
    await sleep(0);
    signals.emit('SIGINT', 'SIGINT');
    expect(await within(exit)).toBe(130);
  });
});
