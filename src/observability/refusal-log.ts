/**
 * How refused requests reach the log: anyone who can reach the port can
 * send them, as fast as they like, so one line each would let them fill
 * the operator's disk. Each kind of refusal (a source name no config has
 * counts as one, whatever name was sent, and a reason code) gets one info
 * line per window, carrying how many of its kind went unlogged before it;
 * every refusal is also a debug line. Not debug alone: a source whose
 * secret was mistyped refuses every delivery, and an operator must see
 * that at the default level. The counters in /metrics count every one.
 */
import type { Clock } from '../clock.js';
import type { Logger } from './logger.js';
import { logValue } from './log-value.js';

export const REFUSAL_LOG_WINDOW_MS = 60_000;
/** A refusal's message names what the sender sent (a source, an inbox id): bounded, but long enough to keep the reason. */
const MESSAGE_MAX = 300;

export interface Refusal {
  /** A configured name, or anything a sender put in a path. */
  source: string;
  known: boolean;
  reason: string;
  message: string;
}

interface Kind {
  loggedAt: number;
  unlogged: number;
}

export function refusalLog(logger: Logger | undefined, now: Clock): (refusal: Refusal) => void {
  // Keyed by configured names and reason codes only: a sender cannot grow this map.
  const kinds = new Map<string, Kind>();
  return (refusal) => {
    if (logger === undefined) return;
    const line = { source: logValue(refusal.source), known: refusal.known, reason: logValue(refusal.reason) };
    const message = logValue(refusal.message, MESSAGE_MAX);
    const key = `${refusal.known ? refusal.source : ''}\u0000${refusal.reason}`;
    const kind = kinds.get(key);
    const at = now();
    if (kind !== undefined && at - kind.loggedAt < REFUSAL_LOG_WINDOW_MS) {
      kind.unlogged++;
      logger.debug(line, 'webhook refused: %s', message);
      return;
    }
    kinds.set(key, { loggedAt: at, unlogged: 0 });
    const unlogged = kind?.unlogged ?? 0;
    logger.info(unlogged === 0 ? line : { ...line, unlogged }, 'webhook refused: %s', message);
  };
}
