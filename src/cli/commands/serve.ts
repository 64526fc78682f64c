/** `vigil serve`: the service in the foreground until SIGTERM or SIGINT. */
import { Command } from 'commander';
import { parsePort } from '../parse.js';

export function serveCommand(): Command {
  return new Command('serve')
    .summary('run the service: webhooks in, agent runs, messages out')
    .description(
      'receive webhooks, run the agent, deliver its messages. Without --config: SQLite under ./data, ' +
        '127.0.0.1:8787, the example agent, the console channel, and a "demo" GitHub-style source whose secret is public',
    )
    .option('--config <file>', 'config file: .json, .js/.mjs (default export) or .ts')
    .option('--store <url>', "override the config's store: 'sqlite:<dir>' or 'postgres://…'")
    .option('--port <port>', "override the config's port (0: any free port)", parsePort)
    .addHelpText(
      'after',
      '\nSIGTERM or SIGINT stops claiming, lets runs finish for workers.shutdownGraceMs, releases leases and exits 0;\na second signal exits at once (128 + signal number).',
    )
    .action(async (flags: { config?: string; store?: string; port?: number }) => {
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
      const logger = createLogger({ level: config.log.level });
      if (file === null) {
        logger.warn("no --config: using the built-in demo config (source 'demo' and token 'vigil-demo-token-everyone-knows-this' are public; 127.0.0.1 only)");
      }
      const service = await startService(config, { logger });
      process.exitCode = await runUntilSignal(service, config.workers.shutdownGraceMs);
      logger.flush();
      // A second signal does not wait for the drain: leave now, whatever is still open.
      if (process.exitCode !== 0) process.exit(process.exitCode);
      // Drained: the process ends when its output is flushed. Should a library
      // leave a handle open, it must not turn a clean stop into a hang.
      setTimeout(() => process.exit(), 2_000).unref();
    });
}
