/**
 * `vigil migrate`: opens the store so its migrations run, and says which
 * schema version it is at. On SQLite each inbox is its own file with its
 * own version, so every existing inbox file is opened (and migrated) too;
 * otherwise they would migrate one by one as the service first touches them.
 */
import { Command } from 'commander';
import { withStore, withStoreFlags, type StoreFlags } from '../open-cli-store.js';
import { print } from '../print.js';

export function migrateCommand(): Command {
  return withStoreFlags(new Command('migrate').description('apply schema migrations and print the schema version')).action(async (flags: StoreFlags) => {
    await withStore(flags, async (store, url) => {
      if (url.startsWith('sqlite:')) {
        const ids = await store.inboxes();
        for (const id of ids) await store.inbox(id).stats();
        const { INBOX_SCHEMA } = await import('../../store/sqlite/migrate.js');
        print(`schema version ${INBOX_SCHEMA.latestVersion()} (${ids.length} inbox file${ids.length === 1 ? '' : 's'} checked)`);
      } else {
        const { latestVersion } = await import('../../store/postgres/migrate.js');
        print(`schema version ${latestVersion()}`);
      }
    });
  });
}
