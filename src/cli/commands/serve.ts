/** `vigil serve` (and `vigil dev`, the same with reloading): the service in the foreground until SIGTERM or SIGINT. */
import { Command } from 'commander';
import { parsePort } from '../parse.js';

export interface ServeFlags {
  config?: string;
  store?: string;
  port?: number;
}

const SIGNALS_HELP =
  '\nSIGTERM or SIGINT stops claiming, lets runs finish for workers.shutdownGraceMs, releases leases and exits 0;\na second signal exits at once (128 + signal number).';

/** The flags `serve` and `dev` share. */
export function withServeFlags(command: Command): Command {
  return command
    .option('--config <file>', 'config file: .json, .js/.mjs (default export) or .ts (default: ./vigil.json if there is one)')
    .option('--store <url>', "override the config's store: 'sqlite:<dir>' or 'postgres://…'")
    .option('--port <port>', "override the config's port (0: any free port)", parsePort)
    .addHelpText('after', SIGNALS_HELP);
}

export function serveCommand(): Command {
  return withServeFlags(
    new Command('serve')
      .summary('run the service: webhooks in, agent runs, messages out')
      .description(
        'receive webhooks, run the agent, deliver its messages. Without --config: ./vigil.json if there is one, else SQLite under ./data, ' +
          '127.0.0.1:8787, the example agent, the console channel, and a "demo" GitHub-style source whose secret is public',
      ),
  ).action((flags: ServeFlags) => runService(flags, { dev: false }));
}

/**
 * Loads the config, starts the service, runs until a signal. With `dev`,
 * logs are pretty whatever stdout is, and the agent module is reloaded
 * when its files change (src/service/agent-reloader.ts).
 */
export async function runService(flags: ServeFlags, { dev }: { dev: boolean }): Promise<void> {
  const { loadConfig } = await import('../../config/load-config.js');
  const { config, file } = await loadConfig(flags.config);
  if (flags.store !== undefined) config.store = flags.store;
  if (flags.port !== undefined) config.port = flags.port;
  // Loaded here, not at the top: the HTTP stack, channels and runtime are
  // what `serve` needs and every other command would only pay for.
  const [{ createLogger }, { startService }, { runUntilSignal }] = await Promise.all([
    import('../../observability/logger.js'),
    import('../../service/service.js'),
    import('../../service/run-until-signal.js'),
  ]);
  // Pretty on a terminal, and always for `vigil dev`; the console channel prints as the log does (text beside
  // pretty lines, JSON records among JSON lines, where a body could otherwise forge one).
  const pretty = dev || process.stdout.isTTY === true;
  const logger = createLogger({ level: config.log.level, pretty });
  if (file === null) {
    logger.warn("no --config and no ./vigil.json: using the built-in demo config (source 'demo' and token 'vigil-demo-token-everyone-knows-this' are public; 127.0.0.1 only)");
  }
  const starting = startService(config, { logger, consoleFormat: pretty ? 'text' : 'json' });
  // Listening before the service starts: it logs its address while starting (runUntilSignal).
  const exitCode = runUntilSignal(starting, config.workers.shutdownGraceMs);
  const service = await starting;
  let stopWatching = (): void => undefined;
  if (dev) {
    if (config.agent === undefined) {
      logger.warn('vigil dev: the config names no "agent" module, so there is nothing to reload (the built-in example agent runs)');
    } else {
      const { watchAgent } = await import('../../service/agent-reloader.js');
      const reloader = await watchAgent({ path: config.agent, service, logger });
      stopWatching = () => reloader.close();
    }
  }
  process.exitCode = await exitCode;
  stopWatching();
  logger.flush();
  // A second signal does not wait for the drain: leave now, whatever is still open.
  if (process.exitCode !== 0) process.exit(process.exitCode);
  // Drained: the process ends when its output is flushed. Should a library
  // leave a handle open, it must not turn a clean stop into a hang.
  setTimeout(() => process.exit(), 2_000).unref();
}
