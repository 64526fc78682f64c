/**
 * What the data costs on disk, read beside the load: on PostgreSQL each of a
 * schema's tables (live and dead tuples, vacuums, heap and total size) and
 * indexes (size), and the oldest transaction the server's vacuum must still
 * respect; on SQLite the store directory's files.
 *
 * pg_stat_user_tables is the cumulative statistics system: its counts trail
 * the truth by up to a second or so (PostgreSQL flushes backends' counters
 * at intervals), which is well inside a 10 s sample.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';

export interface TableStats {
  name: string;
  live: number;
  dead: number;
  /** Heap only. */
  heapBytes: number;
  /** Heap, indexes and TOAST. */
  totalBytes: number;
  autovacuums: number;
  vacuums: number;
}

export interface IndexStats {
  table: string;
  name: string;
  bytes: number;
}

export interface PgStorage {
  tables: TableStats[];
  indexes: IndexStats[];
  deadTuples: number;
  liveTuples: number;
  totalBytes: number;
  indexBytes: number;
  autovacuums: number;
}

export async function pgStorage(admin: pg.Pool, schema: string): Promise<PgStorage> {
  const tables = (
    await admin.query<{ name: string; live: string; dead: string; heap: string; total: string; autovacuums: string; vacuums: string }>(
      `SELECT relname AS name, n_live_tup AS live, n_dead_tup AS dead,
              pg_relation_size(relid) AS heap, pg_total_relation_size(relid) AS total,
              autovacuum_count AS autovacuums, vacuum_count AS vacuums
         FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY relname`,
      [schema],
    )
  ).rows.map((r) => ({
    name: r.name,
    live: Number(r.live),
    dead: Number(r.dead),
    heapBytes: Number(r.heap),
    totalBytes: Number(r.total),
    autovacuums: Number(r.autovacuums),
    vacuums: Number(r.vacuums),
  }));
  const indexes = (
    await admin.query<{ table: string; name: string; bytes: string }>(
      `SELECT relname AS table, indexrelname AS name, pg_relation_size(indexrelid) AS bytes
         FROM pg_stat_user_indexes WHERE schemaname = $1 ORDER BY relname, indexrelname`,
      [schema],
    )
  ).rows.map((r) => ({ table: r.table, name: r.name, bytes: Number(r.bytes) }));
  const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
  return {
    tables,
    indexes,
    deadTuples: sum(tables.map((t) => t.dead)),
    liveTuples: sum(tables.map((t) => t.live)),
    totalBytes: sum(tables.map((t) => t.totalBytes)),
    indexBytes: sum(indexes.map((i) => i.bytes)),
    autovacuums: sum(tables.map((t) => t.autovacuums)),
  };
}

/**
 * How many transactions old the oldest snapshot or transaction id any
 * session holds is: what keeps vacuum from removing dead tuples (the xmin
 * horizon). A few while all is well; it climbs while the idle transaction
 * holds the horizon.
 */
export async function oldestXminAge(admin: pg.Pool): Promise<number> {
  const { rows } = await admin.query<{ age: number | null }>(
    `SELECT max(greatest(age(backend_xmin), age(backend_xid)))::int AS age FROM pg_stat_activity WHERE backend_xmin IS NOT NULL OR backend_xid IS NOT NULL`,
  );
  return rows[0]?.age ?? 0;
}

export interface DirStorage {
  files: number;
  totalBytes: number;
  /** Of which write-ahead logs (`*-wal`). */
  walBytes: number;
}

/** Every file under `dir` (inbox files, their WAL and shared memory files, the ready index). */
export function dirStorage(dir: string): DirStorage {
  const result: DirStorage = { files: 0, totalBytes: 0, walBytes: 0 };
  const walk = (path: string): void => {
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return; // not created yet
    }
    for (const name of names) {
      const full = join(path, name);
      let size: number;
      let isDir: boolean;
      try {
        const stat = statSync(full);
        size = stat.size;
        isDir = stat.isDirectory();
      } catch {
        continue; // removed while we looked (a checkpointed WAL)
      }
      if (isDir) {
        walk(full);
        continue;
      }
      result.files += 1;
      result.totalBytes += size;
      if (name.endsWith('-wal')) result.walBytes += size;
    }
  };
  walk(dir);
  return result;
}
