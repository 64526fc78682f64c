/**
 * The PostgreSQL server both sides of the PostgreSQL benchmark use, in the
 * same run: DATABASE_URL when set, otherwise a throwaway server started by
 * the same helper the tests use (test/setup/throwaway-postgres.ts), at
 * PostgreSQL's default durability (fsync on, synchronous_commit on), and
 * stopped afterwards. Each measurement gets a fresh schema, dropped after it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startThrowawayPostgres } from '../test/setup/throwaway-postgres.js';

/** The server settings that decide what a commit costs, read back from the server. */
export const REPORTED_SETTINGS = [
  'server_version',
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_sync_method',
  'commit_delay',
  'shared_buffers',
  'max_connections',
] as const;

export interface BenchServer {
  url: string;
  /** 'throwaway' (started here) or 'DATABASE_URL'. */
  origin: 'throwaway' | 'DATABASE_URL';
  settings: Record<string, string>;
  /** Raw SQL on the server, for setup and checks outside either side's own API. */
  admin: pg.Pool;
  stop(): Promise<void>;
}

/** `settings` (e.g. fsync off, for a diagnostic run) apply to a throwaway server only. */
export async function openBenchServer(settings: Record<string, string> = {}): Promise<BenchServer> {
  const external = process.env.DATABASE_URL;
  const server = external !== undefined && external !== '' ? null : await startThrowawayPostgres(settings);
  const url = server?.url ?? (external as string);
  const admin = new pg.Pool({ connectionString: url, max: 2, application_name: 'vigil-bench-admin' });
  admin.on('error', () => undefined);
  try {
    const { rows } = await admin.query<{ name: string; setting: string; unit: string | null }>(
      'SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)',
      [[...REPORTED_SETTINGS]],
    );
    const actual: Record<string, string> = {};
    for (const name of REPORTED_SETTINGS) {
      const row = rows.find((r) => r.name === name);
      actual[name] = row === undefined ? '?' : withUnit(row.setting, row.unit);
    }
    return {
      url,
      origin: server === null ? 'DATABASE_URL' : 'throwaway',
      settings: actual,
      admin,
      async stop() {
        await admin.end();
        await server?.stop();
      },
    };
  } catch (error) {
    await admin.end().catch(() => undefined);
    await server?.stop();
    throw error;
  }
}

/** shared_buffers comes as a count of 8kB pages: say it in MB. */
function withUnit(setting: string, unit: string | null): string {
  if (unit === '8kB') return `${Math.round((Number(setting) * 8) / 1024)} MB`;
  return unit === null || unit === '' ? setting : `${setting} ${unit}`;
}

export async function dropSchema(admin: pg.Pool, schema: string): Promise<void> {
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/**
 * Between the untimed setup and a timed measurement: fresh statistics for
 * the schema's tables (so neither side runs on an empty table's plan), then
 * a checkpoint, so every measurement starts in the same place of the
 * checkpoint cycle (the first change of each page after a checkpoint writes
 * the whole page to the WAL) and none is hit by one half way. A user who may
 * not CHECKPOINT (DATABASE_URL) just skips it.
 */
export async function settle(admin: pg.Pool, schema: string): Promise<void> {
  const { rows } = await admin.query<{ name: string }>(
    "SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = $1",
    [schema],
  );
  for (const row of rows) await admin.query(`VACUUM ANALYZE ${row.name}`);
  await admin.query('CHECKPOINT').catch(() => undefined);
}

/** What the server did during a timed part: its WAL flushes and its committed transactions. */
export interface ServerWork {
  /** fsyncs of the WAL (each durable commit waits for one, shared by the commits waiting together); null where the server does not count them. */
  walFlushes: number | null;
  /** Transactions committed in the database, every client's (the side's own, and the bench's few reads). */
  commits: number;
  /**
   * CPU time (ms) of the server's processes: the postmaster, its live
   * backends and the ones it reaped; null where the server is not a local
   * process this one can read (/proc).
   */
  serverCpuMs: number | null;
}

/**
 * The server's counters now; `since` gives what happened between two
 * readings. WAL fsyncs are in pg_stat_io from PostgreSQL 18, in pg_stat_wal
 * (wal_sync) before it; the counters reach the views when a backend
 * reports them, so each reading asks for a fresh snapshot.
 */
export async function serverCounters(admin: pg.Pool): Promise<ServerWork> {
  const client = await admin.connect();
  try {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const [db] = (
      await client.query<{ commits: number }>('SELECT xact_commit::float8 AS commits FROM pg_stat_database WHERE datname = current_database()')
    ).rows;
    let walFlushes: number | null = null;
    for (const sql of [
      "SELECT sum(fsyncs)::float8 AS n FROM pg_stat_io WHERE object = 'wal'",
      'SELECT wal_sync::float8 AS n FROM pg_stat_wal',
    ]) {
      try {
        const [row] = (await client.query<{ n: number | null }>(sql)).rows;
        if (row?.n !== null && row?.n !== undefined) {
          walFlushes = row.n;
          break;
        }
      } catch {
        // this server has the other view
      }
    }
    return { walFlushes, commits: db?.commits ?? 0, serverCpuMs: serverCpu(await postmasterPid(admin, client)) };
  } finally {
    client.release();
  }
}

const postmasters = new WeakMap<pg.Pool, number | null>();

/** The server's postmaster pid, from postmaster.pid in its data directory, when that is readable here. */
async function postmasterPid(admin: pg.Pool, client: pg.PoolClient): Promise<number | null> {
  if (postmasters.has(admin)) return postmasters.get(admin)!;
  let pid: number | null;
  try {
    const [row] = (await client.query<{ dir: string }>('SELECT current_setting($1) AS dir', ['data_directory'])).rows;
    const first = readFileSync(join(row!.dir, 'postmaster.pid'), 'utf8').split('\n')[0];
    pid = Number.isInteger(Number(first)) ? Number(first) : null;
  } catch {
    pid = null; // not ours to read: a remote server, or no /proc
  }
  postmasters.set(admin, pid);
  return pid;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** /proc/<pid>/stat: ppid and utime, stime, cutime, cstime in ticks. */
function procStat(pid: string): { ppid: number; self: number; reaped: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' '); // fields[0] is the state (field 3)
    const at = (n: number): number => Number(fields[n - 3]);
    return { ppid: at(4), self: at(14) + at(15), reaped: at(16) + at(17) };
  } catch {
    return null;
  }
}

function serverCpu(postmaster: number | null): number | null {
  if (postmaster === null) return null;
  const main = procStat(String(postmaster));
  if (main === null) return null;
  let ticks = main.self + main.reaped;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const child = procStat(entry);
    if (child?.ppid === postmaster) ticks += child.self;
  }
  return ticks * TICK_MS;
}

/**
 * The counters once every backend of a side that just closed its
 * connections has reported: a backend reports at exit, or up to a second
 * after its last transaction, so read until two readings 500 ms apart agree.
 */
export async function settledCounters(admin: pg.Pool): Promise<ServerWork> {
  let last = await serverCounters(admin);
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await serverCounters(admin);
    if (now.walFlushes === last.walFlushes && now.commits === last.commits) return now;
    last = now;
  }
  return last;
}

export function workSince(before: ServerWork, after: ServerWork): ServerWork {
  return {
    walFlushes: before.walFlushes === null || after.walFlushes === null ? null : after.walFlushes - before.walFlushes,
    commits: after.commits - before.commits,
    serverCpuMs: before.serverCpuMs === null || after.serverCpuMs === null ? null : after.serverCpuMs - before.serverCpuMs,
  };
}
