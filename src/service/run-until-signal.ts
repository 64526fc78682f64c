/**
 * SIGTERM or SIGINT: stop claiming, let runs finish for the grace period,
 * send the replies that are due, release leases, close, exit 0. A second signal while draining exits at
 * once with 128 + the signal's number, as a shell reports a killed process:
 * someone pressing Ctrl-C twice means it.
 */
import { constants } from 'node:os';
import type { Service } from './service.js';

/**
 * A repeat of the first signal this soon after it is the same key press,
 * not a second one: a terminal sends Ctrl-C to the whole foreground group,
 * and `npm start` (npm, like most supervisors) also forwards the SIGINT it
 * got to its child, so one press arrives twice, a few ms apart. Counting it
 * turned `npm start`'s Ctrl-C into exit 130. A person's second press takes
 * longer than this.
 */
export const ECHO_WINDOW_MS = 250;

export function runUntilSignal(service: Service, graceMs: number): Promise<number> {
  return new Promise((resolve) => {
    let first: { signal: NodeJS.Signals; at: number } | null = null;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (first !== null) {
        if (signal === first.signal && performance.now() - first.at < ECHO_WINDOW_MS) return;
        service.logger.warn({ signal }, 'second signal: exiting now');
        resolve(128 + (constants.signals[signal] ?? 0));
        return;
      }
      first = { signal, at: performance.now() };
      service.logger.info({ signal, graceMs }, 'signal received: draining');
      service.stop(graceMs).then(
        () => resolve(0),
        (error: unknown) => {
          service.logger.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
