/**
 * `vigil settings <inbox>`: an inbox's own settings (contacts, pacing,
 * debounce), read or changed. `--set outbox.gapMs=0` and
 * `--unset contacts.slack` build one JSON merge patch, applied whole: a
 * setting that would not be valid changes nothing and exits 2 naming it.
 */
import { Command } from 'commander';
import { inboxCommand, withStore, type StoreFlags } from '../open-cli-store.js';
import { parseJson } from '../parse.js';
import { printJson } from '../print.js';
import { UsageError } from '../exit-codes.js';

interface SettingsFlags extends StoreFlags {
  set: string[];
  unset: string[];
  patch?: unknown;
}

export function settingsCommand(): Command {
  return inboxCommand('settings', "print an inbox's settings; --set / --unset / --patch change them (JSON merge patch) and print the result")
    .option('--set <path=value>', 'set one setting, e.g. outbox.gapMs=0 or contacts.slack=D0123 (the value is JSON if it parses, else text); repeatable', collect, [])
    .option('--unset <path>', 'remove one setting, e.g. outbox.quietHours; repeatable', collect, [])
    .option('--patch <json>', 'a whole JSON merge patch', parseJson)
    .action(async (inboxId: string, flags: SettingsFlags) => {
      // Built before the store opens: a malformed --set must not create a store.
      const patch = buildPatch(flags);
      await withStore(flags, async (store) => {
        const inbox = store.inbox(inboxId);
        printJson(patch === null ? await inbox.settings() : await inbox.updateSettings(patch));
      });
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The merge patch the flags say, or null to only read. */
export function buildPatch({ set, unset, patch }: { set: string[]; unset: string[]; patch?: unknown }): unknown {
  if (set.length === 0 && unset.length === 0) return patch === undefined ? null : patch;
  if (patch !== undefined) throw new UsageError('use --patch, or --set / --unset, not both');
  const result: Record<string, unknown> = {};
  for (const entry of set) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw new UsageError(`--set ${JSON.stringify(entry)}: write path=value, e.g. outbox.gapMs=0`);
    put(result, entry.slice(0, equals), valueOf(entry.slice(equals + 1)));
  }
  for (const path of unset) put(result, path, null);
  return result;
}

function valueOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // 22:00, Europe/Berlin, D0123: text as typed
  }
}

function put(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  if (keys.some((key) => key === '')) throw new UsageError(`${JSON.stringify(path)} is not a settings path (e.g. outbox.quietHours.from)`);
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}
