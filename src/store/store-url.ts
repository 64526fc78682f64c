/**
 * Store URLs, the one grammar for where the inboxes live:
 *
 *   sqlite:<dir>      one SQLite file per inbox under <dir> (`sqlite:///abs` too)
 *   postgres://…      one PostgreSQL database for all inboxes (`postgresql://` too)
 *
 * Taken apart and put together here only (test/architecture checks it): the
 * config, the CLI, agent loading and the testing kit ask this module, so a
 * new backend adds its scheme here and nowhere outside src/store/.
 */
import { isAbsolute, resolve } from 'node:path';
import { VigilError } from '../errors.js';

export type StoreLocation = { backend: 'sqlite'; dir: string } | { backend: 'postgres'; url: string };

/** Where `npm start` and a config without `store` keep the inboxes. */
export const DEFAULT_STORE_URL = 'sqlite:./data';

const SQLITE = 'sqlite:';
const POSTGRES = /^postgres(ql)?:\/\//;

/** What is wrong with `url` as a store URL, or null: for the config's checks, which report every problem at once. */
export function storeUrlProblem(url: string): string | null {
  if (url.startsWith(SQLITE)) return sqliteDir(url) === '' ? "a SQLite store URL names a directory: 'sqlite:./data'" : null;
  if (POSTGRES.test(url)) {
    const parsed = postgresUrl(url);
    return typeof parsed === 'string' ? parsed : null;
  }
  return "use 'sqlite:<dir>' or 'postgres://…'";
}

const ENCODE_HINT = "percent-encode '@' '/' '?' '#' ':' in the user name and password (%40 %2F %3F %23 %3A)";

/**
 * A PostgreSQL URL taken apart, or what is wrong with it (never quoting it:
 * it may hold a password). An '@' after the host means a password with an
 * unencoded '@' and '/' (or '?', '#'): `postgres://u:pa@ss/wd@db/x` is the
 * host `ss` to every parser, which then named the password's tail in
 * "getaddrinfo ENOTFOUND ss" and showed it in the startup line; refused.
 */
function postgresUrl(url: string): URL | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `not a valid URL (not shown, it may hold a password): ${ENCODE_HINT}`;
  }
  if (`${parsed.pathname}${parsed.search}${parsed.hash}`.includes('@')) return `an '@' after the host (not shown, it may be part of a password): ${ENCODE_HINT}`;
  return parsed;
}

/** A PostgreSQL store URL taken apart; `invalid_store_url` saying why, without the URL, when it cannot be. */
export function parsePostgresUrl(url: string): URL {
  const parsed = postgresUrl(url);
  if (typeof parsed === 'string') throw new VigilError('invalid_store_url', `the PostgreSQL URL is ${parsed}`);
  return parsed;
}

/** The backend and its place; `invalid_store_url` for anything else. */
export function parseStoreUrl(url: unknown): StoreLocation {
  if (typeof url !== 'string') throw new VigilError('invalid_store_url', 'a store URL is a string');
  const problem = storeUrlProblem(url);
  if (problem !== null) {
    // Never the URL itself when it is not one of ours: it may be a PostgreSQL URL with a typo, password and all.
    throw new VigilError('invalid_store_url', POSTGRES.test(url) || url.startsWith(SQLITE) ? problem : `unknown store URL: ${problem}`);
  }
  return url.startsWith(SQLITE) ? { backend: 'sqlite', dir: sqliteDir(url) } : { backend: 'postgres', url };
}

/** `sqlite:<dir>` for a directory. */
export function sqliteStoreUrl(dir: string): string {
  return `${SQLITE}${dir}`;
}

/**
 * `url` with a relative SQLite directory made absolute against `base` (the
 * folder of the config file that names it), so that `--config
 * /etc/vigil/vigil.json` means the same store from any working directory.
 */
export function resolveStoreUrl(url: string, base: string): string {
  if (!url.startsWith(SQLITE)) return url;
  const dir = sqliteDir(url);
  return dir === '' || isAbsolute(dir) ? url : sqliteStoreUrl(resolve(base, dir));
}

/** The directory of a SQLite store (where files beside the inboxes may go), or null for a store with none. */
export function localStoreDir(url: string): string | null {
  if (!url.startsWith(SQLITE)) return null;
  const dir = sqliteDir(url);
  return dir === '' ? null : dir;
}

// `sqlite:///var/lib/vigil` is `/var/lib/vigil`, as a file URL's three slashes would say.
function sqliteDir(url: string): string {
  return url.slice(SQLITE.length).replace(/^\/\/(?=\/)/, '');
}

const HIDDEN = '***';
const SECRET_PARAMS = ['password', 'sslpassword'];

/**
 * A store URL as it may be shown: in the startup log, an error, or anywhere
 * else a person or a log collector reads it. A PostgreSQL URL carries its
 * password (`postgres://user:pass@host/db`, or `?password=` and
 * `?sslpassword=`, which `pg` reads too); the user, host, port, database
 * and the other parameters stay, since they are what an operator checks.
 */
export function redactStoreUrl(url: string): string {
  if (!/^postgres(?:ql)?:/i.test(url)) return url;
  const parsed = postgresUrl(url);
  // Not a URL we can take apart for sure: show none of it rather than guess where the password is.
  if (typeof parsed === 'string') return 'postgres://(unparseable URL, not shown)';
  if (parsed.password !== '') parsed.password = HIDDEN;
  for (const name of SECRET_PARAMS) {
    if (parsed.searchParams.has(name)) parsed.searchParams.set(name, HIDDEN);
  }
  return parsed.toString();
}
