/** The `vigil` command tree. */
import { Command } from 'commander';
import { deleteCommand, exportCommand, importCommand, migrateStoreCommand, pruneCommand } from './commands/data-commands.js';
import { demoCommand } from './commands/demo.js';
import { effectsCommand } from './commands/effects-command.js';
import { devCommand } from './commands/dev.js';
import { initCommand } from './commands/init.js';
import { approveCommand, eventsCommand, ingestCommand, redriveCommand, statusCommand } from './commands/inbox-commands.js';
import { migrateCommand } from './commands/migrate.js';
import { proxyCommand } from './commands/proxy.js';
import { secretCommand } from './commands/secret.js';
import { serveCommand } from './commands/serve.js';
import { settingsCommand } from './commands/settings-command.js';
import { timerCommand, timersCommand } from './commands/timer-commands.js';
import { usageCommand } from './commands/usage-command.js';
import { EXIT_CODES_HELP } from './exit-codes.js';

export function createProgram(version: string): Command {
  const program = new Command('vigil')
    .description('Vigil: a durable runtime for always-on agents')
    .version(version)
    // Throw instead of exiting, so main() maps every usage error to exit code 2.
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP);
  for (const command of [
    initCommand(),
    serveCommand(),
    devCommand(),
    ingestCommand(),
    statusCommand(),
    eventsCommand(),
    redriveCommand(),
    approveCommand(),
    effectsCommand(),
    usageCommand(),
    settingsCommand(),
    timersCommand(),
    timerCommand(),
    migrateCommand(),
    pruneCommand(),
    exportCommand(),
    importCommand(),
    deleteCommand(),
    migrateStoreCommand(),
    demoCommand(),
    proxyCommand(),
    secretCommand(),
  ]) {
    program.addCommand(command);
  }
  // Subcommands built on their own do not inherit these from the program: set them on each.
  const configure = (command: Command): void => {
    command.exitOverride().showHelpAfterError('(add --help for usage)').addHelpText('after', EXIT_CODES_HELP);
    for (const sub of command.commands) configure(sub);
  };
  for (const command of program.commands) configure(command);
  return program;
}
