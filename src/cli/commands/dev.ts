/** `vigil dev`: `vigil serve` for writing an agent: pretty logs, and the agent reloaded when you save it. */
import { Command } from 'commander';
import { runService, withServeFlags, type ServeFlags } from './serve.js';

export function devCommand(): Command {
  return withServeFlags(
    new Command('dev')
      .summary('serve with the agent reloaded on every save, and pretty logs')
      .description(
        'vigil serve for development: logs are pretty-printed, and when the agent module (the config\'s "agent") or a project ' +
          'file it imports changes, the agent is loaded afresh and swapped in between runs: a run in progress finishes with ' +
          'the code it started with and releases its lease first. A module that fails to load is logged and the previous agent keeps running',
      ),
  ).action((flags: ServeFlags) => runService(flags, { dev: true }));
}
