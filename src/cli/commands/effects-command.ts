/**
 * `vigil effects <inbox>`: the inbox's ledger of side effects
 * (contract/effects.ts): by default the calls a crash left unknown, with
 * `--all` every call; `--settle <key> confirmed|failed` settles an unknown
 * one after the operator checked (the API's own record under the key),
 * recorded in the inbox as the dashboard's actions are.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { isVigilError } from '../../errors.js';
import type { EffectRow } from '../../store/contract.js';
import { cliActor } from '../../runtime/operator-actions.js';
import { CommandFailed, UsageError } from '../exit-codes.js';
import { inboxCommand, onStore, type StoreFlags } from '../open-cli-store.js';
import { parsePositiveInt } from '../parse.js';
import { isoTime, print, printJson, table } from '../print.js';

type EffectsFlags = StoreFlags & { all?: boolean; limit: number; json?: boolean; settle?: string; as?: 'confirmed' | 'failed' };

export function effectsCommand(): Command {
  return inboxCommand('effects', "list an inbox's side-effect calls a crash left unknown (--all: every call), or settle one")
    .option('--all', 'every call in the ledger, newest first, not only the unknown ones')
    .option('--limit <n>', 'at most this many', parsePositiveInt, 100)
    .option('--json', 'print JSON')
    .option('--settle <key>', 'settle this unknown call (with --as): exit 1, nothing changed, if it is not unknown')
    .addOption(new Option('--as <state>', 'what the check found: confirmed (it happened) or failed (it did not)').choices(['confirmed', 'failed']))
    .action(
      onStore(async (store, inboxId: string, flags: EffectsFlags) => {
        const inbox = store.inbox(inboxId);
        if (flags.settle !== undefined) {
          if (flags.as === undefined) throw new UsageError('--settle needs --as confirmed or --as failed: what your check found');
          try {
            await inbox.settleEffect(flags.settle, flags.as);
          } catch (error) {
            if (isVigilError(error, 'not_unknown')) throw new CommandFailed(error.message);
            throw error;
          }
          await inbox.recordAction({ actor: cliActor(), action: `settle effect ${flags.as}`, target: flags.settle, result: `settled ${flags.as}` });
          return print(`side effect ${flags.settle} in ${inboxId} is settled ${flags.as}`);
        }
        const effects = await inbox.effects({ which: flags.all === true ? 'all' : 'unknown', limit: flags.limit });
        if (flags.json === true) return printJson(effects);
        if (effects.length === 0) return print(flags.all === true ? `no side effects in ${inboxId}` : `no unknown side effects in ${inboxId}`);
        table(['key', 'state', 'tool', 'input', 'started', 'settled'], effects.map(effectRow));
      }),
    );
}

function effectRow(effect: EffectRow): string[] {
  const input = JSON.stringify(effect.input);
  return [
    effect.key,
    effect.unknown ? 'unknown' : effect.state,
    effect.tool,
    input.length > 60 ? `${input.slice(0, 59)}…` : input,
    effect.startedAt === null ? '-' : isoTime(effect.startedAt),
    effect.settledAt === null ? '-' : isoTime(effect.settledAt),
  ];
}
