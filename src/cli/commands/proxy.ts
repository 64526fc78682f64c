/** `vigil proxy`: the credential proxy in the foreground until SIGTERM or SIGINT; SIGHUP reloads its config. */
import { constants } from 'node:os';
import { Command } from 'commander';
import { parsePort } from '../parse.js';

export function proxyCommand(): Command {
  return new Command('proxy')
    .summary('run the credential proxy: agents call upstreams with credentials they never see')
    .description(
      'forward /<upstream>/<path> to the upstream named in the config, adding its credential header, within its allowed ' +
        'methods and path prefixes. Listens on 127.0.0.1:8788 unless the config or the flags say otherwise',
    )
    .requiredOption('--config <file>', 'proxy config file (.json); see README "Running an agent with real credentials"')
    .option('--port <port>', "override the config's port (0: any free port)", parsePort)
    .option('--host <host>', "override the config's host (default 127.0.0.1: exposing the proxy is a decision)")
    .addHelpText(
      'after',
      '\nSIGTERM or SIGINT closes the proxy (requests in flight get 10 s) and exits 0.\n' +
        'SIGHUP reloads the config file (upstreams, policy, credentials; not host or port); revocations made at\n' +
        '/_admin/revoke/<upstream> survive a reload but not a restart.',
    )
    .action(async (flags: { config: string; port?: number; host?: string }) => {
      // Loaded here, not at the top: every other command would pay for zod, pino and the proxy.
      const [{ loadProxyConfig }, { startProxyServer }, { createLogger }] = await Promise.all([
        import('../../proxy/config.js'),
        import('../../proxy/server.js'),
        import('../../observability/logger.js'),
      ]);
      const config = await loadProxyConfig(flags.config);
      if (flags.port !== undefined) config.port = flags.port;
      if (flags.host !== undefined) config.host = flags.host;
      const logger = createLogger({ level: config.logLevel });
      const proxy = await startProxyServer({ config, logger });
      // Names and targets only: the credentials stay out of every line the proxy prints.
      logger.info(
        {
          url: proxy.url,
          upstreams: Object.fromEntries([...config.upstreams.values()].map((u) => [u.name, `${proxy.url}/${u.name}/… -> ${u.url}/…`])),
          admin: config.adminToken === undefined ? 'disabled (no adminToken)' : `POST ${proxy.url}/_admin/revoke/<upstream>`,
        },
        `vigil proxy listening on ${proxy.url}`,
      );
      if (config.host !== '127.0.0.1' && config.host !== 'localhost' && config.host !== '::1') {
        logger.warn({ host: config.host }, 'the proxy listens beyond loopback: anyone who reaches this port can use its credentials');
      }

      process.on('SIGHUP', () => {
        loadProxyConfig(flags.config).then(
          (next) => {
            next.host = config.host;
            next.port = config.port;
            proxy.reload(next);
            logger.info({ upstreams: [...next.upstreams.keys()], revoked: proxy.revocations.list() }, 'proxy config reloaded');
          },
          (error: unknown) => logger.error({ err: { message: (error as Error).message } }, 'proxy config not reloaded; the previous one stays in force'),
        );
      });

      process.exitCode = await new Promise<number>((resolve) => {
        let stopping = false;
        const onSignal = (signal: NodeJS.Signals): void => {
          if (stopping) {
            // A second signal does not wait for requests in flight (128 + its number, as a shell reports it).
            resolve(128 + (constants.signals[signal] ?? 0));
            return;
          }
          stopping = true;
          logger.info({ signal }, 'signal received: closing the proxy');
          proxy.close().then(
            () => resolve(0),
            (error: unknown) => {
              logger.error({ err: error }, 'proxy shutdown failed');
              resolve(1);
            },
          );
        };
        process.on('SIGTERM', onSignal);
        process.on('SIGINT', onSignal);
      });
      logger.flush();
      if (process.exitCode !== 0) process.exit(process.exitCode);
      // Closed: the process ends once its output is flushed; a stray handle must not turn a clean stop into a hang.
      setTimeout(() => process.exit(), 2_000).unref();
    });
}
