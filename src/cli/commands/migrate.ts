/**
 * `vigil migrate`: opens the store so its migrations run, and says which
 * schema version it is at (store/backends.ts, migrateStore: on SQLite every
 * inbox file is opened, and so migrated, too).
 */
import { Command } from 'commander';
import { cliStoreTarget, withStoreFlags, type StoreFlags } from '../open-cli-store.js';
import { print } from '../print.js';

export function migrateCommand(): Command {
  return withStoreFlags(new Command('migrate').description('apply schema migrations and print the schema version')).action(async (flags: StoreFlags) => {
    const { url, options } = await cliStoreTarget(flags);
    const { migrateStore } = await import('../../store/index.js');
    const { version, inboxFiles } = await migrateStore(url, options);
    print(inboxFiles === null ? `schema version ${version}` : `schema version ${version} (${inboxFiles} inbox file${inboxFiles === 1 ? '' : 's'} checked)`);
  });
}
