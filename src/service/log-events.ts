/**
 * Log lines for the runtime events nobody else logs. The worker pool logs
 * each run's outcome and the dispatcher each send or channel failure (and
 * both count them in the metrics); this adds what an operator watching the
 * log wants beside them: events arriving, runs starting, timers firing,
 * takeovers and answered approvals.
 */
import type { Logger } from '../observability/logger.js';
import type { RuntimeEvents } from '../runtime/runtime-events.js';

export function logRuntimeEvents(events: RuntimeEvents, logger: Logger): () => void {
  const off = [
    events.on('event:ingested', (e) => logger.info(e, e.stored ? 'event stored' : 'duplicate delivery: nothing stored')),
    events.on('run:started', (e) => logger.info({ inboxId: e.inboxId, gen: e.gen, events: e.eventIds.length }, 'run started')),
    events.on('scheduler:fired', (e) => logger.info(e, 'timers fired')),
    events.on('lease:acquired', (e) => {
      if (e.takeover) logger.warn(e, 'took over a lease whose holder stopped: its events run again');
    }),
    events.on('approval:answered', (e) => logger.info(e, 'approval answered')),
  ];
  return () => {
    for (const stop of off) stop();
  };
}
