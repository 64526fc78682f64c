/** Logs: pino, JSON lines, pretty-printed when stdout is a terminal. */
import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export function createLogger(options: { level?: LevelWithSilent; pretty?: boolean; destination?: NodeJS.WritableStream } = {}): Logger {
  const pretty = options.pretty ?? (process.stdout.isTTY === true && options.destination === undefined);
  if (pretty) {
    return pino({ level: options.level ?? 'info', transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname' } } });
  }
  return pino({ level: options.level ?? 'info' }, options.destination ?? process.stdout);
}
