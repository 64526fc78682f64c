/**
 * Where the CLI's store comes from: `--store URL`, else the `store` of the
 * config given with `--config` (or of ./vigil.json, in a project made by
 * `vigil init`), else the embedded default's (what `npm start` uses). The
 * engine options (leaseTtlMs, maxAttempts, …) come from the config too, so
 * `vigil status` sees the store the way the service does.
 */
import { Command } from 'commander';
import type { ConfigFile } from '../config/schema.js';
import type { Store, StoreOptions } from '../store/contract.js';

export interface StoreFlags {
  store?: string;
  config?: string;
}

/** Adds --store and --config to a command. */
export function withStoreFlags(command: Command): Command {
  return command
    .option('--store <url>', "the store: 'sqlite:<dir>' or 'postgres://…' (default: the config's, else sqlite:./data)")
    .option('--config <file>', 'a vigil config (.json, .js, .mjs, .ts) to take the store and engine options from (default: ./vigil.json if there is one)');
}

/** The store a command works on, and the options to open it with. */
export async function cliStoreTarget(flags: StoreFlags): Promise<{ url: string; options: StoreOptions; config: ConfigFile }> {
  // Imported when a command runs, not when the CLI starts: `vigil --help` needs neither zod nor SQLite.
  // The file, its secrets unread: a command on the store must not need the service's secrets in its environment.
  const { loadConfigFile } = await import('../config/load-config.js');
  const { config } = await loadConfigFile(flags.config);
  // A command makes a few writes: the writer thread (engine.writerThread) is for a service's stream of them.
  return { url: flags.store ?? config.store, options: { ...config.engine, writerThread: false }, config };
}

export async function openCliStore(flags: StoreFlags): Promise<{ store: Store; url: string; config: ConfigFile }> {
  const [{ url, options, config }, { openStore }] = await Promise.all([cliStoreTarget(flags), import('../store/index.js')]);
  return { store: await openStore(url, options), url, config };
}

/** A command on one inbox of the store: `<inbox>` first (described as `inbox`), with --store and --config. */
export function inboxCommand(name: string, description: string, inbox = 'inbox id'): Command {
  return withStoreFlags(new Command(name).description(description).argument('<inbox>', inbox));
}

/**
 * A command's action on its store (--store, --config): the store opened for
 * `body`, which gets it before the command's arguments and flags, and
 * closed whatever happens.
 */
export function onStore<A extends unknown[]>(body: (store: Store, ...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    // Commander passes the arguments, then the flags, then the command itself.
    const flags = args[args.length - 2] as StoreFlags;
    await withStore(flags, (store) => body(store, ...args));
  };
}

/** Opens the store, runs `body`, closes the store whatever happens. */
export async function withStore<T>(flags: StoreFlags, body: (store: Store, url: string, config: ConfigFile) => Promise<T>): Promise<T> {
  const { store, url, config } = await openCliStore(flags);
  try {
    return await body(store, url, config);
  } finally {
    await store.close();
  }
}
