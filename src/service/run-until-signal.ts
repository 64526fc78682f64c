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

/**
 * Listens from the moment it is called, before the service has started:
 * the service logs its address while it starts, and a supervisor (or a
 * test) that stops it as soon as it sees that line must find the handler
 * in place, not Node's default, which kills the process without a drain.
 * A signal during start-up drains the service once it has started.
 * `signals`: where the signals come from (the process; a test's emitter).
 */
export function runUntilSignal(
  starting: Promise<Service>,
  graceMs: number,
  signals: Pick<NodeJS.EventEmitter, 'on'> = process,
): Promise<number> {
  return new Promise((resolve) => {
    let first: { signal: NodeJS.Signals; at: number } | null = null;
    let started: Service | null = null;
    starting.then((service) => (started = service), () => undefined);
    const drain = (service: Service, signal: NodeJS.Signals): void => {
      service.logger.info({ signal, graceMs }, 'signal received: draining');
      service.stop(graceMs).then(
        () => resolve(0),
        (error: unknown) => {
          service.logger.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      if (first !== null) {
        if (signal === first.signal && performance.now() - first.at < ECHO_WINDOW_MS) return;
        started?.logger.warn({ signal }, 'second signal: exiting now');
        resolve(128 + (constants.signals[signal] ?? 0));
        return;
      }
      first = { signal, at: performance.now() };
      // A service that failed to start is the caller's to report (it awaits the same promise).
      starting.then((service) => drain(service, signal), () => resolve(1));
    };
    signals.on('SIGTERM', onSignal);
    signals.on('SIGINT', onSignal);
  });
}
