/**
 * SIGTERM or SIGINT: stop claiming, let runs finish for the grace period,
 * send the replies that are due, release leases, close, exit 0. A second signal while draining exits at
 * once with 128 + the signal's number, as a shell reports a killed process:
 * someone pressing Ctrl-C twice means it.
 */
import { constants } from 'node:os';
import type { Service } from './service.js';

export function runUntilSignal(service: Service, graceMs: number): Promise<number> {
  return new Promise((resolve) => {
    let draining = false;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (draining) {
        service.logger.warn({ signal }, 'second signal: exiting now');
        resolve(128 + (constants.signals[signal] ?? 0));
        return;
      }
      draining = true;
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
