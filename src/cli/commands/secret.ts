/**
 * `vigil secret <inbox> <source>`: the webhook secret to give the user of
 * one inbox, for a source configured with `"secret": { "derive": "env:MASTER" }`.
 * Printed alone on stdout, so `$(vigil secret alice github)` is the value.
 */
import { Command } from 'commander';
import { UsageError } from '../exit-codes.js';
import { print } from '../print.js';

export function secretCommand(): Command {
  return new Command('secret')
    .summary("print one inbox's webhook secret for a source with a secret per inbox")
    .description(
      'print the webhook secret of <inbox> for <source>, derived from the master secret the config names in ' +
        '"secret": { "derive": "env:MASTER" }. Give it to that user for the webhook they set up at ' +
        'POST /hooks/<inbox>/<source>; it is valid for their inbox only',
    )
    .argument('<inbox>', 'inbox id')
    .argument('<source>', 'source name in the config')
    .option('--config <file>', 'the vigil config (.json, .js, .mjs, .ts) that defines the source')
    .action(async (inboxId: string, sourceName: string, flags: { config?: string }) => {
      // Imported when the command runs: `vigil --help` needs neither zod nor the store.
      const [{ loadConfigFile }, { validateInboxId }, { perInboxSecret }] = await Promise.all([
        import('../../config/load-config.js'),
        import('../../store/index.js'),
        import('../../http/webhooks/source-secret.js'),
      ]);
      // The file, its secrets unread: this command needs the one master it derives from, not the service's other secrets.
      const { config } = await loadConfigFile(flags.config);
      validateInboxId(inboxId);
      const source = Object.hasOwn(config.sources, sourceName) ? config.sources[sourceName] : undefined;
      if (source === undefined) throw new UsageError(`no source named ${JSON.stringify(sourceName)} in the config (sources: ${Object.keys(config.sources).join(', ') || 'none'})`);
      if (!('derive' in source.secret)) {
        throw new UsageError(`source ${sourceName} has one fixed secret for every inbox; give it "secret": { "derive": "env:MASTER" } for a secret per inbox`);
      }
      const master = source.secret.derive.resolve(process.env, `sources.${sourceName}.secret.derive`);
      print(perInboxSecret(master, sourceName, inboxId));
    });
}
