/** The machine a run measured: CPU, versions, the disk under the scratch directory, and its fsync cost. */
import { execFileSync } from 'node:child_process';
import { closeSync, fdatasyncSync, openSync, readFileSync, realpathSync, rmSync, writeSync } from 'node:fs';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { basename, join } from 'node:path';
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { median } from './timing.js';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  betterSqlite3: string;
  disk: string;
  /** Median of 200 "append 4 KiB + fdatasync" on the scratch disk: the floor under one durable commit. */
  fdatasyncMs: number;
  /**
   * Median of 500 one-row commits with better-sqlite3 at WAL + synchronous
   * FULL, nothing else in the transaction: the floor under any single-event
   * ingest at that durability on this disk, whatever the code around it.
   */
  sqliteCommitMs: number;
  loadAtStart: number[];
}

export function describeMachine(scratch: string): Machine {
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${osType()} ${release()}`,
    node: process.version,
    betterSqlite3: packageVersion('better-sqlite3'),
    disk: diskOf(scratch),
    fdatasyncMs: fdatasyncLatencyMs(scratch),
    sqliteCommitMs: sqliteCommitLatencyMs(scratch),
    loadAtStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line !== undefined) return line.split(':').slice(1).join(':').trim();
  } catch {
    // not Linux: fall through to what Node reports
  }
  return cpus()[0]?.model ?? 'unknown';
}

function packageVersion(name: string): string {
  try {
    const require = createRequire(import.meta.url);
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** "ext4 on /dev/vda (SSD/virtual, not rotational)", as far as the system tells. */
function diskOf(dir: string): string {
  try {
    const out = execFileSync('df', ['-PT', realpathSync(dir)], { encoding: 'utf8' }).trim().split('\n');
    const fields = (out[out.length - 1] ?? '').split(/\s+/);
    const [device = '?', fsType = '?'] = fields;
    const mount = fields[fields.length - 1] ?? '?';
    let kind = '';
    try {
      const rotational = readFileSync(`/sys/block/${basename(device).replace(/p?\d+$/, '')}/queue/rotational`, 'utf8').trim();
      kind = rotational === '1' ? ', reported as rotational' : ', reported as non-rotational (SSD)';
    } catch {
      // not a plain block device (overlay, tmpfs, ...)
    }
    return `${fsType} on ${device} mounted at ${mount}${kind}`;
  } catch {
    return 'unknown';
  }
}

function fdatasyncLatencyMs(dir: string): number {
  const file = join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 7);
  const times: number[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      writeSync(fd, block);
      const start = process.hrtime.bigint();
      fdatasyncSync(fd);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return median(times);
}

function sqliteCommitLatencyMs(dir: string): number {
  const file = join(dir, 'commit-probe.db');
  const db = new Database(file);
  const times: number[] = [];
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 500; i++) {
      const start = process.hrtime.bigint();
      insert.run(i); // autocommit: one transaction, one WAL fsync
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  }
  return median(times);
}
